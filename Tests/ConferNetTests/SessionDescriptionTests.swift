import Testing
import ConferMedia
@testable import ConferNet

@Suite struct SessionDescriptionTests {
    @Test(arguments: [Codec.vp8, .vp9, .h264, .opus])
    func writtenSDPParsesBack(codec: Codec) throws {
        let sdp = SessionDescription(codec: codec, payloadType: 96, address: "127.0.0.1", port: 5004,
                                     channels: codec == .opus ? 2 : 1, ssrc: 1234,
                                     crypto: "AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz")
        let parsed = try SessionDescription(parsing: sdp.text)
        #expect(parsed == sdp)
        #expect(sdp.text.contains("m=\(codec.isVideo ? "video" : "audio") 5004 RTP/SAVP 96\r\n"))
    }

    @Test func readsFFmpegSDP() throws {
        // What `ffmpeg -re -i x -c:v libvpx -f rtp rtp://127.0.0.1:5004 -sdp_file x.sdp` writes.
        let text = """
        v=0
        o=- 0 0 IN IP4 127.0.0.1
        s=No Name
        c=IN IP4 127.0.0.1
        t=0 0
        a=tool:libavformat 59.27.100
        m=video 5004 RTP/AVP 96
        a=rtpmap:96 VP8/90000

        """
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.codec == .vp8)
        #expect(sdp.port == 5004)
        #expect(sdp.address == "127.0.0.1")
        #expect(sdp.crypto == nil)
    }

    @Test func badSDPNamesTheLine() {
        #expect(throws: SessionDescriptionError.self) { try SessionDescription(parsing: "v=0\r\nm=video x RTP/AVP 96\r\n") }
        #expect(throws: SessionDescriptionError.self) { try SessionDescription(parsing: "v=0\nc=IN IP4 1.2.3.4\nm=video 5 RTP/AVP 96\na=rtpmap:96 THEORA/90000\n") }
        do {
            _ = try SessionDescription(parsing: "v=0\ngarbage\n")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 2)
        }
    }
}
