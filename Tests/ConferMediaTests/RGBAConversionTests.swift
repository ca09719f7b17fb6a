import Testing
@testable import ConferMedia

@Suite struct RGBAConversionTests {
    /// libyuv calls memory-order RGBA "ABGR"; these pin down that Confer's RGBA is R first.
    @Test(arguments: [("red", 255, 0, 0), ("green", 0, 255, 0), ("blue", 0, 0, 255),
                      ("white", 255, 255, 255), ("black", 0, 0, 0)])
    func primariesConvertToTheRightBytes(name: String, r: Int, g: Int, b: Int) throws {
        let color = YUVColor(red: UInt8(r), green: UInt8(g), blue: UInt8(b))
        let image = RGBAImage(ImageTestSupport.solid(width: 16, height: 8, color))
        let px = image[7, 3]
        #expect(abs(Int(px.r) - r) <= 2 && abs(Int(px.g) - g) <= 2 && abs(Int(px.b) - b) <= 2, "\(name): \(px)")
        #expect(px.a == 255)
    }

    @Test func pureRedYUVIsRedInMemoryOrder() throws {
        // BT.601 limited-range red.
        let image = RGBAImage(ImageTestSupport.solid(width: 4, height: 4, YUVColor(y: 81, u: 90, v: 240)))
        let px = image[0, 0]
        #expect(px.r >= 253 && px.g <= 2 && px.b <= 2, "\(px)")
        #expect(YUVColor(red: 255, green: 0, blue: 0) == YUVColor(y: 81, u: 90, v: 240))
    }

    @Test func rgbaToI420Primaries() throws {
        for (r, g, b) in [(255, 0, 0), (0, 255, 0), (0, 0, 255)] as [(UInt8, UInt8, UInt8)] {
            var image = RGBAImage(width: 8, height: 8)
            for y in 0..<8 { for x in 0..<8 { image.set(x: x, y: y, r: r, g: g, b: b) } }
            let frame = try image.videoFrame()
            let expected = YUVColor(red: r, green: g, blue: b)
            #expect(abs(Int(frame.y[3, 3]) - Int(expected.y)) <= 1)
            #expect(abs(Int(frame.u[1, 1]) - Int(expected.u)) <= 1)
            #expect(abs(Int(frame.v[1, 1]) - Int(expected.v)) <= 1)
        }
    }

    /// Channel errors of RGBA → I420 → RGBA over a smooth `width` × `height` picture.
    static func roundTripErrors(width: Int = 96, height: Int = 64, _ shade: (Int, Int) -> (Int, Int, Int)) throws -> [Int] {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let c = shade(x, y)
                image.set(x: x, y: y, r: UInt8(c.0), g: UInt8(c.1), b: UInt8(c.2))
            }
        }
        let back = RGBAImage(try image.videoFrame())
        return image.pixels.indices.filter { $0 % 4 != 3 }.map { abs(Int(image.pixels[$0]) - Int(back.pixels[$0])) }
    }

    @Test func greyRampRoundTripsWithinOneLevel() throws {
        let errors = try Self.roundTripErrors { x, y in let v = 16 + (x + y) * 220 / 158; return (v, v, v) }
        #expect(errors.max()! <= 1)
    }

    /// 8-bit limited-range Y′CbCr cannot hold every colour exactly: quantising Y and Cb alone
    /// moves blue by up to 1.6 levels, and libyuv's fixed-point matrices add a little more,
    /// so a smooth colour picture comes back within 2 levels almost everywhere, never
    /// worse than 4, and within 5 for strongly saturated colours.
    @Test func smoothColourImageRoundTripsWithinTwoLevelsAlmostEverywhere() throws {
        let natural = try Self.roundTripErrors { x, y in (90 + x * 80 / 96, 100 + y * 60 / 64, 150 - (x + y) * 50 / 160) }
        let withinTwo = Double(natural.filter { $0 <= 2 }.count) / Double(natural.count)
        #expect(withinTwo >= 0.98, "\(withinTwo)")
        #expect(natural.max()! <= 4)
        #expect(Double(natural.reduce(0, +)) / Double(natural.count) < 1)
        let saturated = try Self.roundTripErrors { x, y in (40 + x * 160 / 96, 40 + y * 160 / 64, 200 - (x + y) * 120 / 160) }
        #expect(saturated.max()! <= 5)
        #expect(Double(saturated.reduce(0, +)) / Double(saturated.count) < 1.1)
    }

    /// A frame whose colours are all inside the RGB gamut (converted from RGB).
    static func inGamutFrame(width: Int, height: Int) throws -> VideoFrame {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                image.set(x: x, y: y, r: UInt8(30 + x * 190 / width), g: UInt8(30 + y * 190 / height),
                          b: UInt8(210 - (x + y) * 150 / (width + height)))
            }
        }
        return try image.videoFrame()
    }

    @Test func oddSizesConvert() throws {
        let frame = try Self.inGamutFrame(width: 33, height: 17)
        let back = try RGBAImage(frame).videoFrame()
        #expect(back.width == 33 && back.height == 17)
        #expect(try QualityMetrics.psnr(frame, back).frame > 45)
    }

    @Test func writesIntoACallersBufferWithStride() throws {
        let frame = ImageTestSupport.solid(width: 10, height: 4, YUVColor(red: 0, green: 0, blue: 255))
        var buffer = [UInt8](repeating: 7, count: 48 * 4)
        try buffer.withUnsafeMutableBytes { try frame.copyRGBA(into: $0, stride: 48) }
        #expect(buffer[48 * 2 + 2] >= 253)          // row 2, pixel 0, blue
        #expect(buffer[48 * 2 + 40] == 7)           // padding past the row is untouched
    }

    @Test func rejectsShortBuffersAndStrides() {
        let frame = ImageTestSupport.solid(width: 10, height: 4, .grey)
        var small = [UInt8](repeating: 0, count: 10 * 4 * 4 - 1)
        #expect(throws: YUVError.self) { try small.withUnsafeMutableBytes { try frame.copyRGBA(into: $0, stride: 40) } }
        var enough = [UInt8](repeating: 0, count: 1000)
        #expect(throws: YUVError.self) { try enough.withUnsafeMutableBytes { try frame.copyRGBA(into: $0, stride: 39) } }
        let target = MutableVideoFrame(layout: FrameLayout(width: 10, height: 4))
        #expect(throws: YUVError.self) { try RGBAImage(width: 4, height: 4).copy(into: target) }
    }
}
