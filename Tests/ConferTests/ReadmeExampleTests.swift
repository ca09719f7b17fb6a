import Testing
import ConferMedia
import ConferCodecs

/// The README's library example, kept compiling and true.
@Suite struct ReadmeExampleTests {
    @Test func encodeAndDecodeATestPattern() throws {
        let source = TestPatternSource(width: 640, height: 360, colorIndex: 2)
        let encoder = try VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 640, height: 360, bitrate: 800_000))
        let decoder = try VPXDecoder(codec: .vp8)
        var packet = EncodedFrame(codec: .vp8)
        var decodedCount = 0
        var worst = Double.infinity
        for index in 0..<30 {
            let frame = source.render(frameIndex: index)
            guard try encoder.encode(frame, into: &packet) else { continue }
            if let decoded = try decoder.decode(packet) {
                worst = min(worst, try QualityMetrics.psnr(frame, decoded).y)
                decodedCount += 1
            }
        }
        #expect(decodedCount == 30)
        #expect(worst > 30)
    }
}
