import Foundation
import Testing
@testable import ConferMedia

@Suite struct PNGFileTests {
    @Test func memoryRoundTripIsExact() throws {
        var image = RGBAImage(width: 37, height: 21)
        var random = SeededRandom(seed: 1)
        for y in 0..<21 { for x in 0..<37 {
            let v = random.next()
            image.set(x: x, y: y, r: UInt8(truncatingIfNeeded: v), g: UInt8(truncatingIfNeeded: v >> 8),
                      b: UInt8(truncatingIfNeeded: v >> 16), a: UInt8(truncatingIfNeeded: v >> 24))
        } }
        let data = try PNGFile.encode(image)
        #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(try PNGFile.decodeImage(data) == image)
    }

    @Test func encodeReusesAndGrowsTheCallersBuffer() throws {
        let image = RGBAImage(ImageTestSupport.gradient(width: 64, height: 48))
        var data = [UInt8](repeating: 0, count: 1024)   // too small for the picture at first
        try PNGFile.encode(image, into: &data)
        let first = data
        try PNGFile.encode(image, into: &data)
        #expect(data == first)
        #expect(try PNGFile.decodeImage(data) == image)
    }

    @Test func frameFileRoundTripAndFFmpegReadsIt() throws {
        let dir = try ImageTestSupport.temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("frame.png").path
        let frame = try RGBAConversionTests.inGamutFrame(width: 320, height: 240)
        try PNGFile.write(frame, to: path)

        // PNG is lossless: reading gives exactly the RGBA written, and the same frame as
        // converting that RGBA directly; colour conversion alone costs little.
        #expect(try PNGFile.readImage(from: path) == RGBAImage(frame))
        let back = try PNGFile.readFrame(from: path, pool: FramePool(width: 320, height: 240))
        #expect(back.width == 320 && back.height == 240)
        #expect(try QualityMetrics.psnr(back, try RGBAImage(frame).videoFrame()).frame == QualityMetrics.maxPSNR)
        #expect(try QualityMetrics.psnr(frame, back).frame > 45)
        #expect(try ImageTestSupport.ffmpeg(["-i", path, "-f", "null", "-"]) == 0)
        // ffmpeg decodes it to the same pixels.
        let decoded = dir.appendingPathComponent("ffmpeg.rgba").path
        #expect(try ImageTestSupport.ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", decoded]) == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: decoded))) == RGBAImage(frame).pixels)
    }

    @Test func missingFileIsAnIOError() {
        #expect {
            try PNGFile.readImage(from: "/nonexistent/confer/missing.png")
        } throws: { error in
            (error as? MediaFileError)?.kind == .io && (error as? MediaFileError)?.format == "PNG"
        }
    }

    @Test func garbageKeepsLibpngsMessage() {
        #expect {
            try PNGFile.decodeImage(Array("definitely not a png file".utf8))
        } throws: { error in
            guard let e = error as? MediaFileError else { return false }
            return e.kind == .malformed && e.format == "PNG" && e.detail.contains("libpng: ") && e.detail.count > 9
        }
    }

    @Test func truncatedDataIsAnError() throws {
        let data = try PNGFile.encode(RGBAImage(ImageTestSupport.gradient(width: 64, height: 64)))
        for cut in [0, 8, 20, 40, data.count / 2, data.count - 13] {
            #expect(throws: MediaFileError.self, "cut at \(cut)") { try PNGFile.decodeImage(Array(data.prefix(cut))) }
        }
    }

    @Test func hugeHeaderIsRejectedBeforeAllocating() throws {
        var data = try PNGFile.encode(RGBAImage(width: 4, height: 4))
        // IHDR width and height (big-endian at bytes 16 and 20) claim 60 000 × 60 000.
        for offset in [16, 20] {
            data[offset] = 0; data[offset + 1] = 0; data[offset + 2] = 0xEA; data[offset + 3] = 0x60
        }
        let crc = Self.crc32(data[12..<29])
        for i in 0..<4 { data[29 + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
        #expect {
            try PNGFile.decodeImage(data)
        } throws: { error in
            guard let e = error as? MediaFileError else { return false }
            return e.kind == .unsupported && e.detail.contains("60000×60000")
        }
        #expect(throws: MediaFileError.self) { try PNGFile.decodeImage(try PNGFile.encode(RGBAImage(width: 64, height: 64)), maxPixels: 1000) }
    }

    @Test func writingToAnUnwritablePathFails() {
        #expect(throws: MediaFileError.self) {
            try PNGFile.write(RGBAImage(width: 2, height: 2), to: "/nonexistent/confer/out.png")
        }
    }

    /// CRC-32 as PNG chunks use it (ISO 3309), to forge a valid header in a test.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
