import ConferCongestion
import ConferMedia
import ConferRTP
import Testing

@Suite struct ProbeTests {
    @Test func startUpAsksForThreeAndSixTimesTheStartRate() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(300)))
        let first = estimator.nextProbe(at: .zero)
        let second = estimator.nextProbe(at: .zero)
        #expect(first?.bitrate == .kilobitsPerSecond(900) && second?.bitrate == .kilobitsPerSecond(1800))
        #expect(first?.id != second?.id)
        #expect(first?.minimumPackets == 5)
        #expect(second?.minimumBytes == 3375)  // 15 ms at 1.8 Mbit/s
        #expect(estimator.nextProbe(at: .milliseconds(10)) == nil)
        #expect(estimator.snapshot.probeClusters == 2)

        var capped = SendSideBandwidthEstimator(configuration: .init(
            startBitrate: .kilobitsPerSecond(300), maximumBitrate: .megabitsPerSecond(1)))
        #expect(capped.nextProbe(at: .zero)?.bitrate == .kilobitsPerSecond(900))
        #expect(capped.nextProbe(at: .zero)?.bitrate == .megabitsPerSecond(1))
        #expect(capped.nextProbe(at: .zero) == nil)

        var off = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(300), probing: false))
        #expect(off.nextProbe(at: .zero) == nil)
    }

    @Test func aProbeThatHitsTheBottleneckSetsTheEstimateJustBelowIt() throws {
        var estimator = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(300)))
        _ = estimator.nextProbe(at: .zero)
        let next = estimator.nextProbe(at: .zero)
        let cluster = try #require(next)
        // Five packets leave 5.33 ms apart (1.8 Mbit/s) and arrive 9.6 ms apart (1 Mbit/s).
        let spacing = try #require(cluster.bitrate.duration(ofBytes: 1200))
        var results: [RTCPTransportFeedback.PacketResult] = []
        for index in 0 ..< 5 {
            estimator.onPacketSent(transportSequenceNumber: UInt16(index), size: 1200, at: .zero + spacing * Int64(index),
                                   probeClusterID: cluster.id)
            let arrival = Timestamp(microseconds: 30_000 + 9600 * Int64(index))
            results.append(RTCPTransportFeedback.PacketResult(sequenceNumber: UInt16(index), arrival: arrival))
        }
        let message = try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: results)
        estimator.onTransportFeedback(message, at: .milliseconds(100))
        let snapshot = estimator.snapshot
        #expect(snapshot.probeResults == 1)
        let probe = try #require(snapshot.probeBitrate)
        #expect(probe > .kilobitsPerSecond(940) && probe < .kilobitsPerSecond(960))
        #expect(estimator.targetBitrate == probe)
        #expect(snapshot.delayBasedBitrate == probe)
    }
}

extension ProbeTests {
    /// A forwarder asks for a probe at the rate of the layers it holds back: one cluster
    /// at that rate (capped at the maximum), never while start-up probing has not begun or
    /// a cluster is waiting, never with probing off.
    @Test func aRequestedProbeIsOneClusterAtTheRate() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(
            startBitrate: .kilobitsPerSecond(300), maximumBitrate: .megabitsPerSecond(2)))
        estimator.requestProbe(at: .kilobitsPerSecond(700), now: .zero)
        // Before start-up probing the request is ignored: start-up comes first.
        #expect(estimator.nextProbe(at: .zero)?.bitrate == .kilobitsPerSecond(900))
        #expect(estimator.nextProbe(at: .zero)?.bitrate == .kilobitsPerSecond(1800))
        estimator.requestProbe(at: .kilobitsPerSecond(700), now: .seconds(3))
        estimator.requestProbe(at: .kilobitsPerSecond(800), now: .seconds(3))    // one is waiting: ignored
        #expect(estimator.nextProbe(at: .seconds(3))?.bitrate == .kilobitsPerSecond(700))
        #expect(estimator.nextProbe(at: .seconds(3)) == nil)
        estimator.requestProbe(at: .megabitsPerSecond(5), now: .seconds(6))
        #expect(estimator.nextProbe(at: .seconds(6))?.bitrate == .megabitsPerSecond(2))

        var off = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(300), probing: false))
        off.requestProbe(at: .kilobitsPerSecond(700), now: .seconds(3))
        #expect(off.nextProbe(at: .seconds(3)) == nil)
    }
}
