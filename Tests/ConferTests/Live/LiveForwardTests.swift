import Testing
import ConferMedia
import ConferNet
import ConferRTP
@testable import ConferLive

/// The forward's RTCP with the SFU, in virtual time: the sender reports it sends, and the
/// feedback it takes. (JanusFanOutTests shows Janus and a WebRTC viewer acting on both.)
@Suite struct LiveForwardTests {
    static let clock = NTPClockMapping(unixTimeAtZero: .seconds(1_800_000_000))
    static func at(_ seconds: Double) -> Timestamp { Timestamp(microseconds: Int64(seconds * 1_000_000)) }

    static func forward(videoRTCP: Bool = true, audio: Bool = true, audioRTCP: Bool = true) throws -> LiveForward {
        let target = LiveForwardTarget(video: UDPAddress(host: "127.0.0.1", port: 5000),
                                       audio: audio ? UDPAddress(host: "127.0.0.1", port: 5002) : nil,
                                       videoRTCP: videoRTCP ? UDPAddress(host: "127.0.0.1", port: 5001) : nil,
                                       audioRTCP: audioRTCP ? UDPAddress(host: "127.0.0.1", port: 5003) : nil)
        return try LiveForward(target, codec: .vp8, seed: 7, ntpClock: clock)
    }

    static func rtpTimestamp(_ packet: UnsafeRawBufferPointer) -> UInt32 {
        (4 ..< 8).reduce(0) { $0 << 8 | UInt32(packet[$1]) }
    }

    /// Each stream's report maps the instant it is made to the RTP timestamp a packet
    /// captured then carries, and counts the packets and payload bytes sent; a CNAME follows.
    @Test func senderReportsMapTheWallClockToTheStreamsTimestamps() throws {
        let forward = try Self.forward()
        let frame = EncodedFrame(codec: .vp8, data: [UInt8](repeating: 0x5A, count: 3000), isKeyframe: true, timestamp: Self.at(2),
                                 width: 320, height: 180, vp8: VP8FrameInfo(pictureID: 1))
        forward.take(video: frame)
        let packets = forward.videoPackets
        #expect(packets.count == 3, "3,000 bytes in packets of at most 1,188")
        let frameTimestamp = Self.rtpTimestamp(packets[0])
        let payloadBytes = (0 ..< packets.count).reduce(0) { $0 + packets[$1].count - 12 }

        let reports = forward.reports(at: Self.at(2.5))
        #expect(reports.map(\.destination.address.port) == [5001, 5003])
        let compound = try RTCPCompound.parse(reports[0].bytes)
        guard case .senderReport(let report) = compound.first, case .sourceDescription(let description) = compound.last else {
            Issue.record("not SR then SDES: \(compound)")
            return
        }
        #expect(compound.count == 2)
        #expect(report.ssrc == LiveForward.videoSSRC)
        #expect(report.ntpTime == Self.clock.ntpTime(at: Self.at(2.5)))
        #expect(report.rtpTimestamp == frameTimestamp &+ 45_000, "half a second of the 90 kHz clock after the frame")
        #expect(report.packetCount == 3 && Int(report.octetCount) == payloadBytes)
        #expect(description.chunks.first?.ssrc == LiveForward.videoSSRC)
        #expect(description.chunks.first?.items.first?.text == LiveForward.cname)
        guard case .senderReport(let audio) = try RTCPCompound.parse(reports[1].bytes).first else {
            Issue.record("no audio SR")
            return
        }
        #expect(audio.ssrc == LiveForward.audioSSRC && audio.packetCount == 0)
    }

    /// A forward that replaces another goes on with its streams: the SSRC, the next sequence
    /// number, the timestamp mapping and the report's counts; other payload types start anew.
    @Test func aReplacingForwardGoesOnWithTheStreams() throws {
        let first = try Self.forward(audio: false)
        func frame(at seconds: Double) -> EncodedFrame {
            EncodedFrame(codec: .vp8, data: [UInt8](repeating: 0x5A, count: 2000), isKeyframe: true, timestamp: Self.at(seconds),
                         width: 320, height: 180, vp8: VP8FrameInfo(pictureID: 1))
        }
        first.take(video: frame(at: 1))
        func headers(_ forward: LiveForward) throws -> [RTPHeader] {
            try (0 ..< forward.videoPackets.count).map { try RTPPacket(parsing: Array(forward.videoPackets[$0])).header }
        }
        let before = try headers(first)
        let moved = LiveForwardTarget(video: UDPAddress(host: "127.0.0.1", port: 6000), audio: UDPAddress(host: "127.0.0.1", port: 6002),
                                      videoRTCP: UDPAddress(host: "127.0.0.1", port: 6001))
        let second = try LiveForward(moved, codec: .vp8, seed: 8, ntpClock: Self.clock, continuing: first)
        second.take(video: frame(at: 1.5))
        let after = try headers(second)
        #expect(before.count == 2 && after.count == 2)
        #expect(after[0].ssrc == LiveForward.videoSSRC)
        #expect(after[0].sequenceNumber == before[1].sequenceNumber &+ 1)
        #expect(after[0].timestamp &- before[0].timestamp == 45_000, "half a second on the same mapping")
        guard case .senderReport(let report) = try RTCPCompound.parse(second.reports(at: Self.at(2))[0].bytes).first else {
            Issue.record("no SR")
            return
        }
        #expect(report.packetCount == 4, "the stream's count, not the new address's")

        var otherType = moved
        otherType.videoPayloadType = 100
        let anew = try LiveForward(otherType, codec: .vp8, seed: 8, ntpClock: Self.clock, continuing: first)
        anew.take(video: frame(at: 1.5))
        let restarted = try headers(anew)[0]
        #expect(restarted.payloadType == 100)
        #expect(restarted.sequenceNumber != before[1].sequenceNumber &+ 1, "another stream's numbers")
    }

    /// Reports go only where the target names an RTCP port, and audio's only with audio.
    @Test func reportsGoOnlyToTheRTCPPortsNamed() throws {
        #expect(try Self.forward(videoRTCP: false, audioRTCP: false).reports(at: Self.at(1)).isEmpty)
        #expect(try Self.forward(audio: false).reports(at: Self.at(1)).map(\.destination.address.port) == [5001])
        #expect(try Self.forward(videoRTCP: false).reports(at: Self.at(1)).map(\.destination.address.port) == [5003])
    }

    /// A PLI or a new FIR for the composite asks for a keyframe; one about another stream, a
    /// repeated FIR, receiver reports and REMBs do not; what is not RTCP is counted and dropped.
    @Test func aPLIOrANewFIRAsksForAKeyframe() throws {
        let forward = try Self.forward()
        let video = LiveForward.videoSSRC
        func take(_ packets: [RTCPPacket]) throws -> Bool {
            try RTCPCompound.serialized(packets).withUnsafeBytes { forward.takeFeedback($0) }
        }
        let receiverReport = RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: 1))
        #expect(try take([receiverReport, .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: video))]))
        #expect(try !take([receiverReport, .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 99))]))
        let fir = { (number: UInt8) in RTCPPacket.fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: video, sequenceNumber: number)])) }
        #expect(try take([receiverReport, fir(4)]))
        #expect(try !take([receiverReport, fir(4)]), "the same FIR again is the same request")
        #expect(try take([receiverReport, fir(5)]))
        let remb = RTCPPacket.receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 300_000, ssrcs: [video]))
        #expect(try !take([receiverReport, remb]))
        #expect(forward.keyframeRequests == 3 && forward.feedbackDropped == 0)

        let garbage: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x04]
        #expect(!garbage.withUnsafeBytes { forward.takeFeedback($0) })
        #expect(forward.feedbackDropped == 1 && forward.keyframeRequests == 3)
    }

    /// Feedback is known by the address it comes from: the RTCP ports named, nothing else.
    @Test func feedbackComesFromTheRTCPPortsOnly() throws {
        let forward = try Self.forward()
        #expect(forward.isFeedbackSource(UDPAddress(host: "127.0.0.1", port: 5001)))
        #expect(forward.isFeedbackSource(UDPAddress(host: "127.0.0.1", port: 5003)))
        #expect(!forward.isFeedbackSource(UDPAddress(host: "127.0.0.1", port: 5000)), "the RTP port sends nothing back")
        #expect(!forward.isFeedbackSource(UDPAddress(host: "127.0.0.2", port: 5001)))
        #expect(try !Self.forward(videoRTCP: false, audioRTCP: false).isFeedbackSource(UDPAddress(host: "127.0.0.1", port: 5001)))
    }
}
