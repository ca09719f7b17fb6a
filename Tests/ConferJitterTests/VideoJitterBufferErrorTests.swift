import Testing
import ConferMedia
import ConferJitter

@Suite struct VideoJitterBufferErrorTests {
    /// An audio codec is refused with a kind the caller can switch on, not a stopped process.
    @Test func opusIsRefusedNotATrap() {
        let error = #expect(throws: VideoJitterBufferError.self) { _ = try VideoJitterBuffer(codec: .opus) }
        #expect(error?.kind == .notAVideoCodec)
        for codec in [Codec.vp8, .vp9, .h264] {
            #expect(throws: Never.self) { _ = try VideoJitterBuffer(codec: codec) }
        }
    }
}
