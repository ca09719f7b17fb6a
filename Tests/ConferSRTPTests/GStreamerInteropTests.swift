#if canImport(Glibc)
import Glibc
import ConferSRTP
import Testing

/// SRTP against GStreamer's srtpenc/srtpdec (libsrtp inside GStreamer, over real UDP).
@Suite(.enabled(if: GStreamerPeer.isAvailable, "needs gst-launch-1.0 and gst-plugins-bad's srtp"))
struct GStreamerInteropTests {
    static let ssrc: UInt32 = 1234
    static let packets = 50

    @Test(arguments: SRTPProfile.allCases)
    func packetsFromSrtpencUnprotect(profile: SRTPProfile) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        let key = TestPackets.key(profile, seed: 21)
        let names = GStreamerPeer.gstNames(profile)
        let socket = try LoopbackSocket()
        // 50 buffers of 960 samples at 48 kHz make exactly 50 Opus packets of 20 ms.
        let peer = try GStreamerPeer(pipeline: [
            "audiotestsrc", "num-buffers=\(Self.packets)", "samplesperbuffer=960", "!",
            "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "frame-size=20", "!",
            "rtpopuspay", "ssrc=\(Self.ssrc)", "pt=111", "!", "application/x-rtp", "!",
            "srtpenc", "key=\(GStreamerPeer.hex(key.keyingMaterial))",
            "rtp-cipher=\(names.cipher)", "rtp-auth=\(names.auth)",
            "rtcp-cipher=\(names.rtcpCipher)", "rtcp-auth=\(names.rtcpAuth)", "!",
            "udpsink", "host=127.0.0.1", "port=\(socket.port)",
        ])
        let receiver = try SRTPSession(key: key, direction: .inbound)
        var buffer = [UInt8](repeating: 0, count: 2048)
        var sequences: [UInt16] = []
        while sequences.count < Self.packets {
            let length = try socket.receive(into: &buffer, until: deadline)
            let plain = try buffer.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: length) }
            #expect(plain == length - profile.rtpOverhead)
            #expect(buffer[0] & 0xC0 == 0x80, "RTP version 2")
            #expect(buffer[1] & 0x7F == 111, "the payload type rtpopuspay was given")
            #expect(buffer[8 ..< 12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == Self.ssrc)
            sequences.append(UInt16(buffer[2]) << 8 | UInt16(buffer[3]))
        }
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 &+ 1 == $1 }, "consecutive sequence numbers")
        #expect(receiver.stats.packetsUnprotected == UInt64(Self.packets))
        #expect(receiver.stats.authenticationFailures == 0)
        #expect(try peer.waitForExit(until: deadline) == 0)
    }

    @Test(arguments: SRTPProfile.allCases)
    func packetsWeProtectPassSrtpdec(profile: SRTPProfile) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        let key = TestPackets.key(profile, seed: 22)
        let names = GStreamerPeer.gstNames(profile)
        // Borrow a free port for udpsrc: bind, read the port, release it.
        let port = try LoopbackSocket().port
        let output = "/tmp/confer-srtp-\(getpid())-\(profile.rawValue).rtp"
        defer { unlink(output) }
        let caps = "application/x-srtp,ssrc=(uint)\(Self.ssrc),srtp-key=(buffer)\(GStreamerPeer.hex(key.keyingMaterial)),"
            + "srtp-cipher=(string)\(names.cipher),srtp-auth=(string)\(names.auth),"
            + "srtcp-cipher=(string)\(names.rtcpCipher),srtcp-auth=(string)\(names.rtcpAuth),"
            + "media=(string)audio,clock-rate=(int)48000,encoding-name=(string)OPUS,payload=(int)111"
        let peer = try GStreamerPeer(pipeline: [
            "udpsrc", "address=127.0.0.1", "port=\(port)", "num-buffers=\(Self.packets)", "caps=\(caps)", "!",
            "srtpdec", "!", "filesink", "location=\(output)",
        ])
        // udpsrc binds its socket on the way to PAUSED, which gst-launch reports as live.
        try peer.waitForOutput("Pipeline is live", until: deadline)

        let sender = try SRTPSession(key: key, direction: .outbound)
        let socket = try LoopbackSocket()
        var random = TestRandom(seed: 5)
        var expected: [UInt8] = []
        for index in 0 ..< Self.packets {
            let plain = TestPackets.rtp(
                sequence: 4000 &+ UInt16(index), timestamp: UInt32(index) * 960, ssrc: Self.ssrc, payloadType: 111,
                payload: random.bytes(20 + Int(random.next() % 200))
            )
            expected += plain
            var packet = plain
            try sender.protectRTP(&packet)
            try socket.send(packet, toPort: port)
        }
        #expect(try peer.waitForExit(until: deadline) == 0)
        // filesink writes the decrypted RTP packets back to back.
        #expect(try readWholeFile(output) == expected)
    }
}
#endif
