@testable import ConferCongestion
import ConferMedia
import Testing

/// Probing on a path whose delay varies: bursts sized to outlast the jitter, start-up
/// probing run again once the jitter is known, and a burst's slowness that the jitter
/// explains not taken for a bottleneck.
@Suite struct ProbeJitterTests {
    static func cluster(_ id: Int, kbps: Double) -> ProbeCluster {
        ProbeCluster(id: id, bitrate: .kilobitsPerSecond(kbps), minimumPackets: 5, minimumBytes: 1000)
    }

    static func next(_ probes: inout ProbeController, at time: Timestamp) throws -> ProbeCluster {
        let cluster = probes.nextCluster(at: time)
        return try #require(cluster)
    }

    /// Feeds ten 1200-byte packets of a 1.8 Mbit/s burst whose arrivals spread `extra` µs
    /// wider than their departures; returns the estimator's result.
    static func measure(extra: Int64, delayVariation: TimeDelta) -> DataRate? {
        var estimator = ProbeBitrateEstimator()
        let cluster = Self.cluster(1, kbps: 1800)
        estimator.register(cluster, at: .zero)
        let spacing = TimeDelta(microseconds: 5333)
        var result: DataRate?
        for index in 0 ..< 10 {
            let send = Timestamp.zero + spacing * Int64(index)
            let receive = send + .milliseconds(40) + TimeDelta(microseconds: extra * Int64(index) / 9)
            result = estimator.add(PacketFeedback(sequenceNumber: Int64(index), sendTime: send, receiveTime: receive, size: 1200, probeClusterID: 1),
                                   delayVariation: delayVariation) ?? result
        }
        return result
    }

    @Test func aSpreadTheJitterExplainsIsNotABottleneck() throws {
        // 48 ms of sending arrive over 56 ms: on a clean path the burst hit a bottleneck
        // (receive rate 86 % of send rate, result 95 % of the receive rate) …
        let clean = try #require(Self.measure(extra: 8000, delayVariation: .zero))
        #expect(clean > .kilobitsPerSecond(1450) && clean < .kilobitsPerSecond(1500))
        // … on a path whose delay varies by 10 ms it says only that the burst got through.
        let jittery = try #require(Self.measure(extra: 8000, delayVariation: .milliseconds(10)))
        #expect(jittery > .kilobitsPerSecond(1790) && jittery < .kilobitsPerSecond(1810))
        // A spread well beyond the jitter is still a bottleneck.
        let slow = try #require(Self.measure(extra: 30000, delayVariation: .milliseconds(10)))
        #expect(slow < .kilobitsPerSecond(1300))
    }

    @Test func burstsOutlastTheJitterAndStartUpProbingRunsAgainOnceItIsKnown() throws {
        var probes = ProbeController(enabled: true, startBitrate: .kilobitsPerSecond(300), maximumBitrate: .megabitsPerSecond(3))
        let first = try Self.next(&probes, at: .zero)
        _ = try Self.next(&probes, at: .zero)
        #expect(first.minimumBytes == 1688)  // 15 ms at 900 kbit/s, before anything is measured
        // Results in, the estimate barely moved, and the path turns out to vary by 10 ms.
        probes.delayVariation = .milliseconds(10)
        probes.onEstimate(.kilobitsPerSecond(350), at: .milliseconds(300))
        #expect(probes.nextCluster(at: .milliseconds(300)) == nil)  // too early: results may be on the way
        probes.onEstimate(.kilobitsPerSecond(350), at: .milliseconds(450))
        let retry = try Self.next(&probes, at: .milliseconds(450))
        let retry2 = try Self.next(&probes, at: .milliseconds(450))
        #expect(retry.bitrate == .kilobitsPerSecond(1050) && retry2.bitrate == .kilobitsPerSecond(2100))
        #expect(retry.minimumBytes == 10500)  // 80 ms at 1.05 Mbit/s
        // Bursts long enough now: no further round until the jitter doubles again, and at
        // most two rounds in all.
        probes.onEstimate(.kilobitsPerSecond(400), at: .milliseconds(2000))
        #expect(probes.nextCluster(at: .milliseconds(2000)) == nil)
        probes.delayVariation = .milliseconds(25)
        probes.onEstimate(.kilobitsPerSecond(400), at: .milliseconds(2100))
        let third = try Self.next(&probes, at: .milliseconds(2100))
        #expect(third.bitrate == .kilobitsPerSecond(1200) && third.minimumBytes == 30000)  // 200 ms at 1.2 Mbit/s
        _ = probes.nextCluster(at: .milliseconds(2100))
        probes.delayVariation = .milliseconds(100)
        probes.onEstimate(.kilobitsPerSecond(400), at: .milliseconds(4000))
        #expect(probes.nextCluster(at: .milliseconds(4000)) == nil)
        #expect(probes.clustersIssued == 6)
    }

    @Test func aCleanPathOrAFoundBottleneckIsNotProbedAgain() {
        var clean = ProbeController(enabled: true, startBitrate: .kilobitsPerSecond(300), maximumBitrate: .megabitsPerSecond(3))
        _ = clean.nextCluster(at: .zero)
        _ = clean.nextCluster(at: .zero)
        clean.delayVariation = .milliseconds(1)
        clean.onEstimate(.kilobitsPerSecond(350), at: .milliseconds(2000))
        #expect(clean.nextCluster(at: .milliseconds(2000)) == nil)

        var congested = ProbeController(enabled: true, startBitrate: .kilobitsPerSecond(300), maximumBitrate: .megabitsPerSecond(3))
        _ = congested.nextCluster(at: .zero)
        _ = congested.nextCluster(at: .zero)
        congested.onOveruse(estimateBefore: .kilobitsPerSecond(350), at: .milliseconds(1000))
        congested.delayVariation = .milliseconds(10)
        congested.onEstimate(.kilobitsPerSecond(350), at: .milliseconds(2000))
        #expect(congested.nextCluster(at: .milliseconds(2000)) == nil)
        #expect(congested.clustersIssued == 2)
    }
}
