import Testing
@testable import ConferMedia

@Suite struct VideoScalerTests {
    @Test(arguments: VideoScaler.Filter.allCases)
    func downThenUpKeepsAGradient(filter: VideoScaler.Filter) throws {
        let original = ImageTestSupport.gradient(width: 320, height: 240)
        let scaler = VideoScaler(filter: filter)
        let small = try scaler.scaled(original, using: FramePool(width: 160, height: 120))
        let back = try scaler.scaled(small, using: FramePool(width: 320, height: 240))
        #expect(small.width == 160 && small.height == 120)
        let psnr = try QualityMetrics.psnr(original, back)
        // A linear ramp survives halving almost exactly (measured 52–57 dB luma); point
        // sampling is a little worse than the filters.
        #expect(psnr.y >= (filter == .none ? 50 : 54), "\(filter): \(psnr)")
        #expect(psnr.frame >= 48, "\(filter): \(psnr)")
    }

    @Test func boxFilterAveragesWherePointSamplingPicks() throws {
        // Alternating black and white columns: box averaging gives mid grey, point sampling
        // keeps one of the two.
        let frame = MutableVideoFrame(layout: FrameLayout(width: 64, height: 16))
        frame.fill(with: .black)
        for x in stride(from: 0, to: 64, by: 2) { frame.fill(PixelRect(x: x, y: 0, width: 1, height: 16), with: .white) }
        let stripes = frame.finish()
        let boxed = try VideoScaler(filter: .box).scaled(stripes, using: FramePool(width: 32, height: 8))
        let picked = try VideoScaler(filter: .none).scaled(stripes, using: FramePool(width: 32, height: 8))
        #expect(abs(Int(boxed.y[10, 4]) - 126) <= 2)
        #expect(picked.y[10, 4] == 16 || picked.y[10, 4] == 235)
    }

    @Test func upscalingKeepsCornersAndOrientation() throws {
        let original = ImageTestSupport.gradient(width: 64, height: 48)
        let big = try VideoScaler(filter: .bilinear).scaled(original, using: FramePool(width: 256, height: 192))
        // Dark top-left, bright bottom-right, as in the source.
        #expect(big.y[0, 0] < 30)
        #expect(big.y[255, 191] > 220)
        #expect(big.y[128, 96] > 100 && big.y[128, 96] < 150)
    }

    @Test func scalesIntoASubRectangleOnly() throws {
        let source = ImageTestSupport.solid(width: 64, height: 64, .white)
        let canvas = MutableVideoFrame(layout: FrameLayout(width: 100, height: 80))
        canvas.fill(with: .black)
        try VideoScaler(filter: .box).scale(source, from: PixelRect(width: 64, height: 64),
                                            into: canvas, at: PixelRect(x: 20, y: 10, width: 32, height: 40))
        let out = canvas.finish()
        for (x, y) in [(20, 10), (51, 49), (35, 30)] { #expect(out.y[x, y] == 235, "inside at \(x),\(y)") }
        for (x, y) in [(19, 10), (52, 10), (20, 9), (20, 50), (0, 0), (99, 79)] { #expect(out.y[x, y] == 16, "outside at \(x),\(y)") }
        #expect(out.u[9, 5] == 128 && out.u[10, 5] == 128)
    }

    @Test func cropsTheSourceRectangle() throws {
        // Left half black, right half white: cropping the right half gives all white.
        let frame = MutableVideoFrame(layout: FrameLayout(width: 64, height: 32))
        frame.fill(with: .black)
        frame.fill(PixelRect(x: 32, y: 0, width: 32, height: 32), with: .white)
        let source = frame.finish()
        let out = MutableVideoFrame(layout: FrameLayout(width: 16, height: 16))
        try VideoScaler(filter: .bilinear).scale(source, from: PixelRect(x: 32, y: 0, width: 32, height: 32),
                                                 into: out, at: PixelRect(width: 16, height: 16))
        let result = out.finish()
        #expect((0..<16).allSatisfy { result.y[$0, 8] == 235 })
    }

    @Test func fitLetterboxesAndLeavesTheBars() throws {
        let source = ImageTestSupport.solid(width: 160, height: 90, .white)
        let canvas = MutableVideoFrame(layout: FrameLayout(width: 200, height: 200))
        canvas.fill(with: .black)
        let written = try VideoScaler().scale(source, into: canvas, at: PixelRect(width: 200, height: 200), mode: .fit)
        let out = canvas.finish()
        #expect(written == PixelRect(x: 0, y: 44, width: 200, height: 112))
        #expect(out.y[100, 10] == 16 && out.y[100, 190] == 16)
        #expect(out.y[100, 100] == 235)
    }

    @Test func rejectsBadRectangles() {
        let source = ImageTestSupport.solid(width: 64, height: 64, .grey)
        let canvas = MutableVideoFrame(layout: FrameLayout(width: 64, height: 64))
        let scaler = VideoScaler()
        let cases: [(PixelRect, PixelRect)] = [
            (PixelRect(width: 64, height: 64), PixelRect(x: 1, y: 0, width: 10, height: 10)),   // odd x
            (PixelRect(width: 64, height: 64), PixelRect(x: 40, y: 0, width: 30, height: 10)),  // past the edge
            (PixelRect(x: 0, y: 3, width: 8, height: 8), PixelRect(width: 10, height: 10)),     // odd source y
            (PixelRect(x: 0, y: 0, width: 0, height: 8), PixelRect(width: 10, height: 10)),     // empty source
            (PixelRect(x: -2, y: 0, width: 8, height: 8), PixelRect(width: 10, height: 10)),    // negative
        ]
        for (from, to) in cases {
            #expect(throws: YUVError.self, "\(from) → \(to)") {
                try scaler.scale(source, from: from, into: canvas, at: to)
            }
        }
    }

    @Test func scaledFramesComeFromThePool() throws {
        let pool = FramePool(width: 32, height: 32, capacity: 2)
        let source = ImageTestSupport.gradient(width: 64, height: 64)
        for _ in 0..<10 { _ = try VideoScaler().scaled(source, using: pool) }
        #expect(pool.allocatedCount == 1)
        #expect(pool.overflowCount == 0)
    }
}
