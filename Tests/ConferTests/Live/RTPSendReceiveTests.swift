import Foundation
import Testing
@testable import Confer
import ConferCodecs
import ConferMedia
import ConferNet
import ConferRTP
import ConferSRTP
@testable import ConferLive
@testable import ConferJobs
import ConferTestSupport

/// Runs ``LiveReceiver`` on a free loopback port and, once it listens, `send(port)`; returns
/// the receiver's report (it ends by its idle timeout, or `maxDuration` as a bound).
func receiving(_ options: LiveReceiverOptions, send: (Int) async throws -> Void) async throws -> LiveReceiveReport {
    let (ports, listening) = AsyncStream.makeStream(of: Int.self)
    async let report = LiveReceiver.run(options: options) { port in
        listening.yield(port)
        listening.finish()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw TestFailure("the receiver never listened") }
    try await send(port)
    return try await report
}

/// Options for a receiver on a free loopback port that stops 0.5 s after the last datagram (20 s at most),
/// through the jitter buffers unless `jitterBuffer` is false.
func loopbackReceiver(_ codec: Codec, output: String, key: SRTPMasterKey? = nil, jitterBuffer: Bool = true) -> LiveReceiverOptions {
    LiveReceiverOptions(listen: UDPAddress(host: "127.0.0.1", port: 0), codec: codec, output: output, srtpKey: key,
                       maxDuration: 20, idleTimeout: 0.5, usesJitterBuffer: jitterBuffer)
}

/// What holds for 20 ms Opus packets played out through the jitter buffer however the
/// machine's load timed them: none lost, each one accepted played or (too late) discarded,
/// and every sample decoded either played or taken out by time stretching, so the output
/// is the stream's audio, however the playout had to stretch it.
func expectPlayedOut(_ report: LiveReceiveReport, sourceLocation: SourceLocation = #_sourceLocation) {
    let audio = report.pipeline?.audio
    #expect(report.jitterBuffer, sourceLocation: sourceLocation)
    #expect(report.lost == 0, sourceLocation: sourceLocation)
    #expect(report.framesDecoded + Int(audio?.packetsDiscarded ?? -1) == report.packetsAccepted, sourceLocation: sourceLocation)
    let accounted = (audio?.jitterBufferEmittedCount ?? 0) + (audio?.removedSamplesForAcceleration ?? 0)
        - (audio?.insertedSamplesForDeceleration ?? 0)
    #expect(accounted == Int64(report.framesDecoded * 960), "\(String(describing: audio))", sourceLocation: sourceLocation)
    #expect(report.samplesWritten >= Int(audio?.jitterBufferEmittedCount ?? 0), sourceLocation: sourceLocation)
}

/// A fixed key for a profile (tests only: real keys come from SRTPMasterKey.random).
func testKey(_ profile: SRTPProfile = .aes128CmHmacSha1_80, seed: UInt64 = 7) -> SRTPMasterKey {
    var random = SeededRandom(seed: seed)
    return SRTPMasterKey.random(profile: profile, using: &random)
}

/// A generated 1 s, 320×240, 30 fps test card.
func makeClip(in directory: String, index: Int = 3) throws -> String {
    let path = directory + "/clip.y4m"
    _ = try Generator.run(output: path, width: 320, height: 240, seconds: 1, index: index)
    return path
}

/// Confer to Confer over loopback UDP: every frame arrives and decodes.
@Suite(.timeLimit(.minutes(3)), .wallClockExclusive)
struct RTPSendReceiveTests {
    @Test(arguments: [Codec.vp8, .vp9, .h264])
    func videoCrossesLoopback(codec: Codec) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let output = dir + "/out.y4m"
        var sent: LiveSendReport?
        let report = try await receiving(loopbackReceiver(codec, output: output)) { port in
            sent = try await LiveSender.run(input: clip, options: LiveSenderOptions(
                codec: codec, destination: UDPAddress(host: "127.0.0.1", port: port), bitrateKbps: 500, isPaced: false, randomSeed: 1,
                rtcpMux: true))
        }
        #expect(sent?.frames == 30)
        #expect(sent?.passThrough == false)
        // RTCP multiplexed from the start: every sender report and the BYE came here too (by
        // default the first would go to the port above, where another test may be listening).
        #expect(sent?.rtcpMultiplexed == true && (sent?.rtcpPackets ?? 0) >= 2)
        #expect(report.rtcpPackets == sent?.rtcpPackets)
        #expect(report.datagrams == (sent?.packets ?? 0) + report.rtcpPackets)
        #expect(report.lost == 0)
        #expect(report.framesAssembled == 30)
        #expect(report.framesDecoded == 30)
        #expect(report.framesWritten == 30)
        #expect(report.pipeline?.video?.framesRendered == 30)
        #expect(report.pipeline?.video?.framesDropped == 0)
        #expect(report.width == 320 && report.height == 240)
        #expect(report.endReason == "bye")
        let quality = try Comparison.run(reference: clip, test: output, perFrame: false)
        #expect(quality.testFrames == 30)
        #expect(quality.summary.meanPSNR.y >= 30)
    }

    /// Recorded (unpaced, no jitter buffer), every packet decodes and the file is the same
    /// second of tone, to the sample; played out through the jitter buffer (paced, as it
    /// plays), every packet plays (see ``expectPlayedOut(_:sourceLocation:)``).
    @Test(arguments: [false, true])
    func opusCrossesLoopback(jitterBuffer: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = dir + "/tone.wav"
        _ = try Generator.run(output: tone, seconds: 1, index: 2)
        let output = dir + "/out.wav"
        var sent: LiveSendReport?
        let report = try await receiving(loopbackReceiver(.opus, output: output, jitterBuffer: jitterBuffer)) { port in
            sent = try await LiveSender.run(input: tone, options: LiveSenderOptions(
                codec: .opus, destination: UDPAddress(host: "127.0.0.1", port: port), isPaced: jitterBuffer, rtcpMux: true))
        }
        #expect(sent?.frames == 50)
        #expect(sent?.payloadType == 111)
        #expect(report.framesDecoded == 50)
        if jitterBuffer {
            expectPlayedOut(report)
            #expect(report.endReason == "bye")
        } else {
            #expect(report.samplesWritten == 48_000)
            #expect(report.samplesConcealed == 0)
            #expect(try Demo.audioCorrelation(tone, output) > 0.9)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func srtpCrossesLoopback(profile: SRTPProfile) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let key = testKey(profile)
        var sent: LiveSendReport?
        let report = try await receiving(loopbackReceiver(.vp8, output: dir + "/out.y4m", key: key)) { port in
            sent = try await LiveSender.run(input: clip, options: LiveSenderOptions(
                codec: .vp8, destination: UDPAddress(host: "127.0.0.1", port: port), bitrateKbps: 500, srtpKey: key, isPaced: false,
                rtcpMux: true))
        }
        #expect(sent?.srtpProfile == profile.rawValue)
        // Each packet: the fixed header, the transport-wide sequence number extension (a 4-byte
        // extension header and a 3-byte element padded to 4) and the SRTP tag.
        #expect(sent.map { $0.bytes - $0.packets * (RTPHeader.fixedSize + 8 + profile.rtpOverhead) } == sent?.payloadBytes)
        #expect(report.framesDecoded == 30)
        #expect(report.srtpAuthenticationFailures == 0 && report.srtpReplays == 0 && report.srtpOtherFailures == 0)
    }

    @Test func wrongKeyIsRejectedAndCounted() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        var sent: LiveSendReport?
        let report = try await receiving(loopbackReceiver(.vp8, output: dir + "/out.y4m", key: testKey(seed: 2))) { port in
            sent = try await LiveSender.run(input: clip, options: LiveSenderOptions(
                codec: .vp8, destination: UDPAddress(host: "127.0.0.1", port: port), srtpKey: testKey(seed: 1), isPaced: false,
                rtcpMux: true))
        }
        // Media and the sender's SRTCP (multiplexed) all fail authentication; the receiver,
        // never having authenticated anything, sends no RTCP back.
        #expect(report.datagrams == (sent?.packets ?? 0) + (sent?.rtcpPackets ?? 0))
        #expect(report.srtpAuthenticationFailures == report.datagrams)
        #expect(sent?.rtcpPacketsReceived == 0)
        #expect(report.packetsAccepted == 0)
        #expect(report.framesAssembled == 0 && report.framesDecoded == 0)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.y4m"))
    }

    @Test func ivfIsSentAndStoredUnchanged() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let ivf = dir + "/clip.ivf"
        _ = try Transcoder.run(input: clip, output: ivf, options: TranscodeOptions(codec: .vp9, bitrateKbps: 400))
        let received = dir + "/received.ivf"
        var sent: LiveSendReport?
        let report = try await receiving(loopbackReceiver(.vp9, output: received)) { port in
            sent = try await LiveSender.run(input: ivf, options: LiveSenderOptions(
                codec: .vp9, destination: UDPAddress(host: "127.0.0.1", port: port), isPaced: false, rtcpMux: true))
        }
        #expect(sent?.passThrough == true)
        #expect(report.framesWritten == 30)
        let original = try IVFReader(path: ivf)
        let copy = try IVFReader(path: received)
        #expect(copy.header.width == 320 && copy.header.height == 240)
        var frames = 0
        while let a = try original.next() {
            let b = try copy.next()
            #expect(b?.data == a.data, "frame \(frames)")
            #expect(b?.timestamp == a.timestamp)
            frames += 1
        }
        #expect(frames == 30)
        #expect(try copy.next() == nil)
    }

    @Test func opusLossIsConcealedToKeepTime() async throws {
        // Encode one second of tone into 50 packets, then send all but packets 10 and 11.
        var tone = ToneSource(index: 1, pattern: .continuous)
        var encoder = try OpusEncoder(settings: AudioEncoderSettings(channels: 1, bitrate: 32_000, frameDurationMs: 20))
        var packetizer = try RTPPacketizer(codec: .opus, ssrc: 99, payloadType: 111, firstSequenceNumber: 65_530,
                                           timestampOffset: 0xFFFF_F000)
        var datagrams: [[UInt8]] = []
        var frame = EncodedFrame(codec: .opus)
        for index in 0 ..< 50 {
            var pcm = tone.next(frameCount: 960)
            pcm.timestamp = .milliseconds(Int64(index) * 20)
            try encoder.encode(pcm, into: &frame)
            let packets = try packetize(frame, with: &packetizer)
            #expect(packets.count == 1)
            if index != 10 && index != 11 { datagrams.append(packets[0]) }
        }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Recorded: the file keeps RTP time however fast the packets came.
        let report = try await receiving(loopbackReceiver(.opus, output: dir + "/out.wav", jitterBuffer: false)) { port in
            try await sendDatagrams(datagrams, to: port)
        }
        #expect(report.lost == 2)
        #expect(report.framesDecoded == 48)
        #expect(report.samplesConcealed == 1920)
        #expect(report.samplesWritten == 48_000)
        #expect(try AudioFileReader(path: dir + "/out.wav").frameCount == 48_000)
    }

    @Test func packetizerNumbersEveryPacket() throws {
        let key = testKey()
        var plain = try RTPPacketizer(codec: .vp8, ssrc: 0x1234, payloadType: 96, firstSequenceNumber: 65_534,
                                      timestampOffset: 4_294_967_000)
        let outbound = try SRTPSession(key: key, direction: .outbound)
        let inbound = try SRTPSession(key: key, direction: .inbound)
        var expectedSequence: UInt16 = 65_534
        for index in 0 ..< 3 {
            let frame = EncodedFrame(codec: .vp8, data: (0 ..< 1000).map { UInt8(truncatingIfNeeded: $0 * 7 + index) },
                                     isKeyframe: index == 0, timestamp: .milliseconds(Int64(index) * 40),
                                     vp8: VP8FrameInfo(pictureID: UInt16(index)))
            // Room for the SRTP tag, as a transport sizes it.
            let packets = try packetize(frame, with: &plain, maxPacketSize: 300 - key.profile.rtpOverhead)
            let count = packets.count
            #expect(count == 4)
            for packet in 0 ..< count {
                let bytes = packets[packet]
                #expect(bytes.count <= 300)
                try RTPPacketView.withView(of: bytes) { view in
                    #expect(view.sequenceNumber == expectedSequence)
                    #expect(view.timestamp == 4_294_967_000 &+ UInt32(index * 3600))
                    #expect(view.marker == (packet == count - 1))
                    #expect(view.ssrc == 0x1234 && view.payloadType == 96)
                }
                var protected = bytes
                try outbound.protectRTP(&protected)
                #expect(protected.count == bytes.count + key.profile.rtpOverhead)
                #expect(protected.count <= 300)
                try inbound.unprotectRTP(&protected)
                #expect(protected == bytes)
                expectedSequence &+= 1
            }
        }
        #expect(plain.statistics.packetsSent == 12)
        #expect(plain.statistics.octetsSent == 3000 + 12 * 4)   // a 4-byte descriptor (15-bit picture id) per packet
        #expect(throws: (any Error).self) {
            _ = try RTPPacketizer(codec: .vp8, ssrc: 1, payloadType: 128, firstSequenceNumber: 0, timestampOffset: 0)
        }
    }

    @Test func sessionDescriptionConfiguresTheReceiver() throws {
        let key = testKey(.aeadAes128Gcm)
        let options = LiveSenderOptions(codec: .h264, destination: UDPAddress(host: "127.0.0.1", port: 5004), payloadType: 102,
                                       ssrc: 42, srtpKey: key)
        let text = LiveSender.sessionDescription(for: options).text
        #expect(text.contains("m=video 5004 RTP/SAVP 102\r\n"))
        #expect(text.contains("a=crypto:1 AEAD_AES_128_GCM inline:"))
        #expect(!text.contains("a=rtcp-mux"))
        var muxed = options
        muxed.rtcpMux = true
        let muxedText = LiveSender.sessionDescription(for: muxed).text
        #expect(muxedText.contains("a=rtcp-mux\r\n"))
        #expect(try SessionDescription(parsing: muxedText).rtcpMux && !(try SessionDescription(parsing: text).rtcpMux))
        let receiver = try LiveReceiverOptions(sessionDescription: try SessionDescription(parsing: text), output: "x.y4m")
        #expect(receiver.codec == .h264)
        #expect(receiver.effectivePayloadType == 102)
        #expect(receiver.listen == UDPAddress(host: "0.0.0.0", port: 5004))
        #expect(receiver.srtpKey == key)
    }

    @Test func badOutputIsRefusedBeforeListening() async throws {
        await #expect(throws: JobError.self) {
            _ = try await LiveReceiver.run(options: LiveReceiverOptions(
                listen: UDPAddress(host: "127.0.0.1", port: 0), codec: .opus, output: "/tmp/x.ivf", maxDuration: 1))
        }
        await #expect(throws: (any Error).self) {
            _ = try await LiveSender.run(input: "/dev/null/none.y4m", options: LiveSenderOptions(
                codec: .vp8, destination: UDPAddress(host: "127.0.0.1", port: 9)))
        }
    }
}

/// Sends `datagrams` one after another from a fresh socket to 127.0.0.1:`port`.
func sendDatagrams(_ datagrams: [[UInt8]], to port: Int) async throws {
    try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { socket in
        for datagram in datagrams { try await socket.send(datagram, to: UDPAddress(host: "127.0.0.1", port: port)) }
    }
}

/// Hostile datagrams interleaved with a valid stream: every good frame still decodes and
/// every bad datagram is counted where it belongs.
@Suite(.timeLimit(.minutes(3)), .wallClockExclusive)
struct RTPReceiverBadInputTests {
    /// The packets of 30 VP8 frames of the generated clip, as the sender would send them.
    static func packets(of clip: String, key: SRTPMasterKey?) throws -> [[UInt8]] {
        let reader = try VideoFileReader(path: clip)
        let encoder = try AnyVideoEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 320, height: 240, bitrate: 500_000),
                                          allowsFrameDropping: false)
        var packetizer = try RTPPacketizer(codec: .vp8, ssrc: 0xC0FFEE, payloadType: 96, firstSequenceNumber: 1000, timestampOffset: 5)
        let srtp = try key.map { try SRTPSession(key: $0, direction: .outbound) }
        var frame = EncodedFrame(codec: .vp8)
        var packets: [[UInt8]] = []
        var index = 0
        while var picture = try reader.next() {
            picture.timestamp = .seconds(Double(index) / 30)
            index += 1
            guard try encoder.encode(picture, into: &frame) else { continue }
            packets += try packetize(frame, with: &packetizer, maxPacketSize: 1200 - (key?.profile.rtpOverhead ?? 0), srtp: srtp)
        }
        return packets
    }

    /// Both paths classify every datagram the same way.
    @Test(arguments: [true, false])
    func plainRTPSurvivesGarbage(jitterBuffer: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let valid = try Self.packets(of: clip, key: nil)
        var random = SeededRandom(seed: 11)
        var datagrams: [[UInt8]] = []
        for (index, packet) in valid.enumerated() {
            var garbage = (0 ..< 40).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            garbage[0] &= 0x3F                                    // version 0
            datagrams.append(garbage)
            datagrams.append(Array(packet.prefix(7)))             // shorter than a header
            var version1 = packet
            version1[0] = version1[0] & 0x3F | 0x40
            datagrams.append(version1)
            var otherType = packet
            otherType[1] = otherType[1] & 0x80 | 100
            datagrams.append(otherType)
            datagrams.append(packet)
            if index == 0 {
                var stranger = packet
                stranger[11] ^= 0xFF                              // another SSRC
                datagrams.append(stranger)
                datagrams.append([0x80, 200, 0x00, 0x40, 1, 2, 3, 4])   // an RTCP header longer than the datagram
            }
            if index == 5 { datagrams.append(packet) }            // a duplicate, once the source is past probation
        }
        let output = dir + "/out.y4m"
        let report = try await receiving(loopbackReceiver(.vp8, output: output, jitterBuffer: jitterBuffer)) { port in
            try await sendDatagrams(datagrams, to: port)
        }
        let n = valid.count
        #expect(report.datagrams == datagrams.count)
        #expect(report.malformed == 3 * n + 1)
        #expect(report.wrongPayloadType == n)
        #expect(report.otherSSRC == 1)
        #expect(report.duplicates == 1)
        #expect(report.lost == -1)   // RFC 3550 A.3 counts the duplicate as received: expected − received
        #expect(report.packetsAccepted == n + 1)
        #expect(report.framesAssembled == 30)
        #expect(report.framesDecoded == 30)
        // Played out or recorded, one jitter buffer assembles: it knew the duplicate's
        // sequence number (whether its frame was still held or already written), and the
        // stranger came within the stream's first half second, so it was only counted.
        #expect(report.pipeline?.video?.packetsDuplicated == 1)
        #expect(report.latePackets == 0)
        #expect(report.pipeline?.video?.streamRestarts == 0)
        #expect(report.streams.count == 1)
        #expect(try Comparison.run(reference: clip, test: output, perFrame: false).summary.meanPSNR.y >= 30)
    }

    @Test(arguments: [true, false])
    func srtpSurvivesForgeriesAndReplays(jitterBuffer: Bool) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try makeClip(in: dir)
        let key = testKey(seed: 3)
        let valid = try Self.packets(of: clip, key: key)
        var random = SeededRandom(seed: 12)
        var datagrams: [[UInt8]] = []
        for packet in valid {
            var badTag = packet
            badTag[badTag.count - 1] ^= 0xFF
            datagrams.append(badTag)                              // before the real one, so it is not a replay
            var garbage = (0 ..< 40).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            garbage[0] = 0x80
            garbage[1] = 96
            datagrams.append(garbage)
            datagrams.append(Array(packet.prefix(10)))           // too short to hold a header and a tag
            datagrams.append(packet)
            datagrams.append(packet)                              // a replay
        }
        let report = try await receiving(loopbackReceiver(.vp8, output: dir + "/out.y4m", key: key, jitterBuffer: jitterBuffer)) { port in
            try await sendDatagrams(datagrams, to: port)
        }
        let n = valid.count
        #expect(report.datagrams == 5 * n)
        #expect(report.srtpAuthenticationFailures == 2 * n)
        #expect(report.srtpOtherFailures == n)
        #expect(report.srtpReplays == n)
        #expect(report.malformed == 0)
        #expect(report.packetsAccepted == n)
        #expect(report.lost == 0)
        #expect(report.framesDecoded == 30)
    }
}

/// The datagrams of `frame` from `packetizer`, each at most `maxPacketSize` bytes before
/// SRTP, protected by `srtp` when one is given: what a transport sends.
func packetize(_ frame: EncodedFrame, with packetizer: inout RTPPacketizer, maxPacketSize: Int = 1200,
               srtp: SRTPSession? = nil) throws -> [[UInt8]] {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maxPacketSize, alignment: 16)
    defer { buffer.deallocate() }
    var datagrams: [[UInt8]] = []
    do {
        try packetizer.packetize(frame, rtpTimestamp: packetizer.rtpTimestamp(at: frame.timestamp), captureTime: frame.timestamp,
                                 maxPayloadSize: maxPacketSize - packetizer.headerSize, into: buffer) { (length) throws(SRTPError) in
            var bytes = Array(buffer[0 ..< length])
            try srtp?.protectRTP(&bytes)
            datagrams.append(bytes)
        }
    } catch {
        switch error {
        case .payload(let failure): throw failure
        case .emit(let failure): throw failure
        }
    }
    return datagrams
}
