import Testing
import ConferMedia
@testable import ConferRTP

/// Feeds `numbers` to `stats` as 20 ms audio packets (8 kHz) arriving exactly on time, so
/// transit is constant whatever the order.
func feed(_ stats: inout RTPReceiverStatistics, _ numbers: [UInt16]) {
    for number in numbers {
        let tick = Int64(number) * 160
        stats.receive(sequenceNumber: number, rtpTimestamp: UInt32(tick), arrival: .fromTicks(tick, rate: 8000))
    }
}

@Test func lossDuplicatesAndReorderingGiveTheRFCFigures() throws {
    var stats = RTPReceiverStatistics(ssrc: 7, clockRate: 8000, minimumSequential: 1)
    // Interval 1: 3 after 4 (reordered), 5 twice, 6 and 7 lost.
    feed(&stats, [0, 1, 2, 4, 3, 5, 5, 8, 9, 10, 11])
    #expect(stats.expectedPackets == 12)  // 11 − 0 + 1
    #expect(stats.packetsReceived == 11)  // duplicates count (A.1)
    #expect(stats.cumulativeLost == 1)
    #expect(stats.duplicatePackets == 1)
    #expect(stats.reorderedPackets == 1)
    let firstBlock = stats.makeReportBlock(now: .seconds(1))
    let first = try #require(firstBlock)
    #expect(first.fractionLost == 21)  // (1 << 8) / 12
    #expect(first.cumulativeLost == 1)
    #expect(first.extendedHighestSequenceNumber == 11)
    #expect(first.jitter == 0)

    // Interval 2: 12…20 and two more copies of 20: more received than expected.
    feed(&stats, Array(12 ... 20) + [20, 20])
    #expect(stats.cumulativeLost == -1)  // 21 expected, 22 received
    let secondBlock = stats.makeReportBlock(now: .seconds(2))
    let second = try #require(secondBlock)
    #expect(second.fractionLost == 0)
    #expect(second.cumulativeLost == 0)  // clamped, never negative

    // Interval 3: 21…30 without 23 and 24. RFC loss is 31 − 30 = 1, but the 1 that was
    // clamped away is remembered, so the report shows the 2 real losses since then.
    feed(&stats, [21, 22] + Array(25 ... 30))
    #expect(stats.cumulativeLost == 1)
    let thirdBlock = stats.makeReportBlock(now: .seconds(3))
    let third = try #require(thirdBlock)
    #expect(third.fractionLost == 51)  // (2 << 8) / 10
    #expect(third.cumulativeLost == 2)
    #expect(third.extendedHighestSequenceNumber == 30)
    #expect(stats.duplicatePackets == 3)
}

@Test func lossIsNeverNegativeWithOnlyDuplicates() throws {
    var stats = RTPReceiverStatistics(ssrc: 7, clockRate: 8000, minimumSequential: 1)
    for number: UInt16 in 0 ..< 50 { feed(&stats, [number, number, number]) }
    #expect(stats.cumulativeLost == -100)
    let blockBlock = stats.makeReportBlock(now: .seconds(1))
    let block = try #require(blockBlock)
    #expect(block.cumulativeLost == 0)
    #expect(block.fractionLost == 0)
    #expect(stats.duplicatePackets == 100)
}

@Test func everyPacketLostInAnIntervalReports255NotZero() throws {
    var stats = RTPReceiverStatistics(ssrc: 7, clockRate: 8000, minimumSequential: 1)
    feed(&stats, [0])
    _ = stats.makeReportBlock(now: .seconds(1))
    feed(&stats, [10])  // 1…9 lost, 10 received: 9 of 10
    let block = stats.makeReportBlock(now: .seconds(2))
    #expect(block?.fractionLost == 230)  // (9 << 8) / 10
}

@Test func sequenceNumbersWrapIntoTheExtendedHighest() throws {
    var stats = RTPReceiverStatistics(ssrc: 7, clockRate: 8000, minimumSequential: 1)
    feed(&stats, Array(65530 ... 65535) + Array(0 ... 5))
    #expect(stats.extendedHighestSequenceNumber == 65541)
    #expect(stats.expectedPackets == 12)
    #expect(stats.cumulativeLost == 0)
    // A straggler from before the wrap is reordered, not a jump.
    feed(&stats, [65534])
    #expect(stats.reorderedPackets == 1)
    #expect(stats.duplicatePackets == 1)
}

@Test func newSourcesServeProbationAndRestartsRebase() {
    var stats = RTPReceiverStatistics(ssrc: 7, clockRate: 8000)  // MIN_SEQUENTIAL 2
    #expect(stats.makeReportBlock(now: .zero) == nil)
    #expect(stats.receive(sequenceNumber: 100, rtpTimestamp: 0, arrival: .zero) == false)
    #expect(stats.receive(sequenceNumber: 105, rtpTimestamp: 0, arrival: .zero) == false)  // not in sequence: probation again
    #expect(stats.receive(sequenceNumber: 106, rtpTimestamp: 0, arrival: .zero) == true)
    #expect(stats.isValid)
    #expect(stats.packetsReceived == 1)
    #expect(stats.expectedPackets == 1)  // the base is 106
    feed(&stats, [107, 108])
    #expect(stats.expectedPackets == 3)
    // A jump of 20000 is ignored once, then accepted as a restart when the next follows it.
    #expect(stats.receive(sequenceNumber: 20_000, rtpTimestamp: 0, arrival: .zero) == false)
    #expect(stats.packetsReceived == 3)
    #expect(stats.receive(sequenceNumber: 20_001, rtpTimestamp: 0, arrival: .zero) == true)
    #expect(stats.packetsReceived == 1)
    #expect(stats.extendedHighestSequenceNumber == 20_001)
    #expect(stats.expectedPackets == 1)
}

@Test func constantTransitGivesZeroJitter() {
    var stats = RTPReceiverStatistics(ssrc: 1, clockRate: 90000, minimumSequential: 1)
    for index in 0 ..< 100 {
        // 40 ms frames (3600 ticks) arriving 37 ms after capture, on a clock with another epoch.
        let arrival = Timestamp.milliseconds(5000 + 37 + Int64(index) * 40)
        stats.receive(sequenceNumber: UInt16(index), rtpTimestamp: 123_456 &+ UInt32(index * 3600), arrival: arrival)
    }
    #expect(stats.jitterEstimate == 0)
    #expect(stats.jitter == 0)
}

@Test func alternatingDelayConvergesToTwiceTheSwing() {
    // Arrivals alternate 1 ms early and late (90 ticks at 90 kHz), so every |D| is 180
    // ticks and A.8's estimate after n updates is 180 · (1 − (15/16)^n).
    var stats = RTPReceiverStatistics(ssrc: 1, clockRate: 90000, minimumSequential: 1)
    for index in 0 ..< 400 {
        let swing: Int64 = index % 2 == 0 ? 1000 : -1000
        let arrival = Timestamp(microseconds: 1_000_000 + Int64(index) * 40_000 + swing)
        stats.receive(sequenceNumber: UInt16(index), rtpTimestamp: UInt32(index * 3600), arrival: arrival)
        let updates = Double(index)
        let expected = 180 * (1 - pow15over16(updates))
        #expect(abs(stats.jitterEstimate - expected) < 1e-9)
    }
    #expect(abs(stats.jitterEstimate - 180) < 1e-6)
    #expect(abs(stats.jitterSeconds - 0.002) < 1e-10)
    #expect(stats.jitter == UInt32(stats.jitterEstimate))
}

private func pow15over16(_ n: Double) -> Double {
    var result = 1.0
    for _ in 0 ..< Int(n) { result *= 15.0 / 16.0 }
    return result
}

@Test func reportBlocksCarryLSRAndDLSR() throws {
    var stats = RTPReceiverStatistics(ssrc: 1, clockRate: 8000, minimumSequential: 1)
    feed(&stats, [0, 1])
    let noReportBlock = stats.makeReportBlock(now: .seconds(1))
    let noReport = try #require(noReportBlock)
    #expect(noReport.lastSenderReport.rawValue == 0)
    #expect(noReport.delaySinceLastSenderReport.rawValue == 0)
    stats.receivedSenderReport(ntpTime: NTPTime(seconds: 0xB44D_B705, fraction: 0x2030_0000), at: .seconds(10))
    let blockBlock = stats.makeReportBlock(now: .seconds(15.25))
    let block = try #require(blockBlock)
    #expect(block.lastSenderReport.rawValue == 0xB705_2030)
    #expect(block.delaySinceLastSenderReport.rawValue == 0x0005_4000)  // 5.25 s
}

@Test func roundTripTimeFollowsRFC3550Example() throws {
    // RFC 3550 §6.4.1, figure 2: A = 0xb710:8000, LSR = 0xb705:2030, DLSR = 0x0005:4000.
    // The RFC rounds the result to 6.125 s; exactly it is 0x0006:1fd0 = 401360/65536 s.
    let block = RTCPReportBlock(
        ssrc: 1, lastSenderReport: CompactNTPTime(rawValue: 0xB705_2030),
        delaySinceLastSenderReport: CompactNTPTime(rawValue: 0x0005_4000))
    let arrival = NTPTime(rawValue: UInt64(0xB710_8000) << 16)
    #expect(block.roundTripTime(receivedAt: arrival) == TimeDelta(microseconds: 6_124_268))
    #expect(RTCPReportBlock(ssrc: 1).roundTripTime(receivedAt: arrival) == nil)
    // An arrival before LSR + DLSR (clock trouble) comes out negative rather than huge.
    let early = NTPTime(rawValue: UInt64(0xB70A_5030) << 16)
    #expect(block.roundTripTime(receivedAt: early) == .zero - CompactNTPTime(rawValue: 0x1000).timeDelta)
}

@Test func senderStatisticsBuildReportsAndMeasureRoundTrips() throws {
    let clock = NTPClockMapping(ntpAtZero: NTPTime(seconds: 3_900_000_000, fraction: 0))
    var sender = RTPSenderStatistics(ssrc: 0xABCD, clockRate: 90000)
    for (index, size) in [100, 200, 300].enumerated() {
        sender.sent(payloadSize: size, rtpTimestamp: UInt32(index * 3600), captureTime: .milliseconds(Int64(index) * 40))
    }
    let report = sender.makeSenderReport(now: .milliseconds(100), clock: clock)
    #expect(report.packetCount == 3)
    #expect(report.octetCount == 600)
    #expect(report.rtpTimestamp == 9000)  // 7200 + 20 ms · 90 kHz
    #expect(report.ntpTime == NTPTime(seconds: 3_900_000_000, fraction: 0x1999_999A))

    // The receiver holds the SR for 5.25 s; its block arrives 125 ms of network later.
    var receiver = RTPReceiverStatistics(ssrc: 0xABCD, clockRate: 90000, minimumSequential: 1)
    receiver.receive(sequenceNumber: 1, rtpTimestamp: 0, arrival: .seconds(500))
    receiver.receivedSenderReport(ntpTime: report.ntpTime, at: .seconds(500))
    let blockBlock = receiver.makeReportBlock(now: .seconds(505.25))
    let block = try #require(blockBlock)
    let rtt = sender.roundTripTime(from: block, receivedAt: .milliseconds(100 + 5250 + 125), clock: clock)
    // LSR keeps 1/65536 s of the SR's NTP time, so the RTT is exact to that resolution.
    #expect(abs(try #require(rtt).microseconds - 125_000) <= 16)
}
