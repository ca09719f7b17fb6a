import ConferCongestion
import ConferMedia
import ConferRTP
import Testing

@Suite struct SentPacketHistoryTests {
    /// Twelve packets 65530…5 (wrapping), sent 1 ms apart, sizes 100 + index.
    static func wrappingHistory() -> SentPacketHistory {
        var history = SentPacketHistory(capacity: 64)
        for index in 0 ..< 12 {
            history.record(sequenceNumber: 65_530 &+ UInt16(index), size: 100 + index,
                           sendTime: .milliseconds(1000 + Int64(index)))
        }
        return history
    }

    /// Feedback for `numbers` (in order), arriving 40 ms after sending plus `extra`, with
    /// `lost` reported missing.
    static func feedback(_ numbers: [UInt16], lost: Set<UInt16>, extra: TimeDelta = .zero) throws -> RTCPTransportFeedback {
        let results = numbers.enumerated().map { index, number in
            RTCPTransportFeedback.PacketResult(
                sequenceNumber: number,
                arrival: lost.contains(number) ? nil : .milliseconds(5000 + Int64(index)) + extra)
        }
        return try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: results)
    }

    @Test func feedbackAcrossTheWrapYieldsTimesSizesAndLosses() throws {
        var history = Self.wrappingHistory()
        let numbers = (0 ..< 12).map { 65_530 &+ UInt16($0) }
        let message = try Self.feedback(numbers, lost: [65_534, 2])
        var results: [PacketFeedback] = []
        let counts = history.resolve(message, at: .seconds(10), into: &results)
        #expect(counts.received == 10 && counts.lost == 2 && counts.unknown == 0 && counts.recovered == 0)
        #expect(results.map(\.sequenceNumber) == [65_530, 65_531, 65_532, 65_533, 65_535, 65_536, 65_537, 65_539, 65_540, 65_541])
        #expect(results.map(\.size) == [100, 101, 102, 103, 105, 106, 107, 109, 110, 111])
        #expect(results.map(\.sendTime) == results.map { .milliseconds(1000 + $0.sequenceNumber - 65_530) })
        // Receive times keep the receiver's spacing (1 ms a packet).
        let first = results[0].receiveTime
        #expect(results.map { $0.receiveTime - first } == results.map { .milliseconds($0.sequenceNumber - 65_530) })
        #expect(results.allSatisfy { $0.probeClusterID == nil })
    }

    @Test func repeatedAndLateReportsCountOnce() throws {
        var history = Self.wrappingHistory()
        let numbers = (0 ..< 12).map { 65_530 &+ UInt16($0) }
        var results: [PacketFeedback] = []
        _ = history.resolve(try Self.feedback(numbers, lost: [65_534, 2]), at: .seconds(10), into: &results)

        // The same message again: nothing new.
        results.removeAll()
        var counts = history.resolve(try Self.feedback(numbers, lost: [65_534, 2]), at: .seconds(10.1), into: &results)
        #expect(results.isEmpty)
        #expect(counts.received == 0 && counts.lost == 0 && counts.unknown == 10)

        // A later message says 65534 did arrive: it yields feedback but is not re-counted.
        counts = history.resolve(try Self.feedback([65_534], lost: []), at: .seconds(10.2), into: &results)
        #expect(counts.recovered == 1 && counts.received == 0 && counts.lost == 0)
        #expect(results.map(\.sequenceNumber) == [65_534])
        #expect(results[0].size == 104)
    }

    @Test func numbersNeverSentOrForgottenAreUnknown() throws {
        var history = SentPacketHistory(capacity: 16)
        var results: [PacketFeedback] = []
        // Before anything is sent, everything is unknown.
        #expect(history.resolve(try Self.feedback([1, 2], lost: []), at: .zero, into: &results).unknown == 2)
        for number in 0 ..< 40 as Range<UInt16> {
            history.record(sequenceNumber: number, size: 1200, sendTime: .milliseconds(Int64(number)))
        }
        #expect(history.capacity == 16)
        // 0…23 have been overwritten by newer packets; 40…41 were never sent.
        let counts = history.resolve(try Self.feedback([22, 23, 24, 25, 40, 41], lost: []), at: .seconds(1), into: &results)
        #expect(counts.received == 2 && counts.unknown == 4)
        #expect(results.map(\.sequenceNumber) == [24, 25])
    }

    @Test func recordingUnwrapsExactlyAsTheSequenceUnwrapperDoes() throws {
        var history = SentPacketHistory()
        var reference = SequenceUnwrapper()
        var number: UInt16 = 65_000
        // Long consecutive runs (several wraps), then jumps forward, back and by half a cycle.
        var steps = [UInt16](repeating: 1, count: 140_000)
        steps += [100, 1, 1, 30_000, 1, 65_531, 1, 1, 32_768, 1, 40_000, 1]
        for step in steps {
            number &+= step
            #expect(history.record(sequenceNumber: number, size: 1200, sendTime: .zero) == reference.unwrap(number))
        }
        #expect(history.lastSequenceNumber == reference.lastUnwrappedValue)
        // Feedback after a long consecutive run still finds its packets.
        for _ in 0 ..< 20_000 {
            number &+= 1
            history.record(sequenceNumber: number, size: 1200, sendTime: .zero)
        }
        var results: [PacketFeedback] = []
        let counts = history.resolve(try Self.feedback([number &- 1, number], lost: []), at: .seconds(1), into: &results)
        #expect(counts.received == 2)
        #expect(results.last?.sequenceNumber == history.lastSequenceNumber)
    }

    @Test func referenceTimesFollowTheTwentyFourBitWrap() {
        var history = SentPacketHistory()
        history.record(sequenceNumber: 7, size: 500, sendTime: .milliseconds(10))
        history.record(sequenceNumber: 8, size: 500, sendTime: .milliseconds(20))
        var results: [PacketFeedback] = []
        let before = RTCPTransportFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 7, packetStatusCount: 1, referenceTime: 0x7F_FFFF,
            feedbackPacketCount: 0, receivedPackets: [.init(sequenceNumber: 7, deltaTicks: 4)])
        let after = RTCPTransportFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 8, packetStatusCount: 1, referenceTime: -0x80_0000,
            feedbackPacketCount: 1, receivedPackets: [.init(sequenceNumber: 8, deltaTicks: 8)])
        _ = history.resolve(before, at: .seconds(3), into: &results)
        _ = history.resolve(after, at: .seconds(3.1), into: &results)
        #expect(results.count == 2)
        // One 64 ms reference step, plus 2 ms − 1 ms of deltas.
        #expect(results[1].receiveTime - results[0].receiveTime == TimeDelta(microseconds: 65_000))
    }

    @Test func theEstimatorCountsWhatFeedbackSays() throws {
        var estimator = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(500), probing: false))
        for index in 0 ..< 12 {
            estimator.onPacketSent(transportSequenceNumber: 65_530 &+ UInt16(index), size: 1200,
                                   at: .milliseconds(1000 + 20 * Int64(index)), probeClusterID: nil)
        }
        let numbers = (0 ..< 12).map { 65_530 &+ UInt16($0) }
        estimator.onTransportFeedback(try Self.feedback(numbers, lost: [65_534, 2]), at: .milliseconds(1300))
        estimator.onTransportFeedback(try Self.feedback([3, 4, 5], lost: []), at: .milliseconds(1400))
        let snapshot = estimator.snapshot
        #expect(snapshot.feedbackMessages == 2)
        #expect(snapshot.packetsSent == 12 && snapshot.bytesSent == 14_400)
        #expect(snapshot.packetsAcknowledged == 10 && snapshot.packetsLost == 2 && snapshot.unknownFeedback == 3)
        #expect(snapshot.delayBasedBitrate != nil)
        #expect(snapshot.roundTripTime != nil)
    }
}
