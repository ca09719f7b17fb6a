import Testing
import Confer
import ConferMedia
import ConferRTP

/// Round-trip time at a receive-only endpoint through RTCP XR (RFC 3611): the receiver's
/// RRTR, the sender's DLRR — in virtual time, over a path of 150 ms each way.
@Suite struct ExtendedReportTests {
    @Test func aReceiveOnlyEndpointMeasuresTheRoundTripOfASlowPath() throws {
        let oneWay = TimeDelta.milliseconds(150)
        var inFlight: [(due: Timestamp, toReceiver: Bool, bytes: [UInt8])] = []
        var now = Timestamp.zero
        let sender = try SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 160, height: 120, maximumBitrate: 300_000, speed: -8, allowsFrameDropping: false),
            maximumPacketSize: 400, probesBandwidth: false, seed: 5)) { inFlight.append((now + oneWay, true, Array($0))) }
        let receiver = try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)),
                                           output: { inFlight.append((now + oneWay, false, Array($0))) }, render: { _ in })
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 1)
        var nextFrame = Timestamp.zero
        while now < .seconds(8) {
            if nextFrame <= now {
                var frame = source.next()
                frame.timestamp = now
                try sender.sendVideo(frame, at: now)
                nextFrame = nextFrame + .milliseconds(33)
            }
            inFlight.sort { $0.due < $1.due }
            while let first = inFlight.first, first.due <= now {
                inFlight.removeFirst()
                first.bytes.withUnsafeBytes { _ = first.toReceiver ? receiver.receive($0, at: now) : sender.receiveRTCP($0, at: now) }
            }
            if let due = sender.nextPollTime, due <= now { sender.poll(at: now) }
            if let due = receiver.nextPollTime, due <= now { receiver.poll(at: now) }
            now = now + .milliseconds(1)
        }
        let statistics = receiver.statistics
        let rtt = try #require(statistics.roundTripTime, "the receiver measured no round trip")
        #expect(abs(rtt - 0.300) < 0.005, "measured \(rtt * 1000) ms over 150 ms each way")
        #expect(statistics.roundTripTimesMeasured >= 2)
    }

    @Test func extendedReportsRoundTripThroughTheWire() throws {
        let report = RTCPExtendedReport(ssrc: 7, blocks: [
            .receiverReferenceTime(NTPTime(seconds: 3_900_000_000, fraction: 0x8000_0000)),
            .delaySinceLastReceiverReport([.init(ssrc: 9, lastReceiverReport: CompactNTPTime(rawValue: 0x1234_5678),
                                                 delay: CompactNTPTime(rawValue: 0x0001_8000))]),
            .other(type: 42, typeSpecific: 1, contents: [1, 2, 3, 4]),
        ])
        let bytes = try RTCPCompound.serialized([.extendedReport(report)])
        #expect(bytes.count == report.serializedSize)
        let parsed = try bytes.withUnsafeBytes { try RTCPCompound.parse($0) }
        #expect(parsed == [.extendedReport(report)])
        // A DLRR answered 1.5 s after an RRTR, read 1.8 s after that RRTR left: 300 ms.
        let sent = NTPTime(seconds: 1000, fraction: 0)
        let entry = RTCPExtendedReport.DelaySinceLastReceiverReport(ssrc: 9, lastReceiverReport: sent.compact,
                                                                     delay: CompactNTPTime(.milliseconds(1500)))
        let rtt = try #require(entry.roundTripTime(receivedAt: sent + .milliseconds(1800)))
        #expect(abs(rtt.seconds - 0.3) < 0.001)
        // Truncated blocks are a typed error, not a crash.
        var truncated = bytes
        truncated[3] = UInt8(truncated[3] + 1)
        truncated += [0, 0, 0, 0]
        truncated[8 + 2] = 0xFF
        #expect(throws: RTCPError.self) { try truncated.withUnsafeBytes { try RTCPCompound.parse($0) } }
    }
}
