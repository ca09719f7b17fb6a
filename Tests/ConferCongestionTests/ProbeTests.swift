@testable import ConferCongestion
import ConferMedia
import ConferRTP
import Foundation
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

@Suite struct EstimatorTests {
    @Test func steadyStateReusesEveryBuffer() {
        var link = BottleneckLink(settings: .init(capacity: .megabitsPerSecond(2)), estimator: SendSideBandwidthEstimator(
            configuration: .init(startBitrate: .kilobitsPerSecond(300))))
        link.run(until: .seconds(5))
        let before = link.estimator.storageFingerprint
        link.run(until: .seconds(15))
        #expect(link.estimator.storageFingerprint == before)
        #expect(link.estimator.snapshot.feedbackMessages > 140)
    }

    @Test func theSnapshotRoundTripsThroughCodable() throws {
        var link = BottleneckLink(settings: .init(capacity: .megabitsPerSecond(1)), estimator: SendSideBandwidthEstimator(
            configuration: .init(startBitrate: .kilobitsPerSecond(300))))
        link.run(until: .seconds(3))
        let snapshot = link.estimator.snapshot
        let json = try JSONEncoder().encode(snapshot)
        let decoded = try JSONDecoder().decode(BandwidthEstimatorSnapshot.self, from: json)
        #expect(String(decoding: json, as: UTF8.self).contains("\"limitedBy\""))
        #expect(decoded == snapshot)
        #expect(snapshot.time != nil && snapshot.targetBitrate == link.estimator.targetBitrate)
    }

    @Test func ratesConvertAndPrint() {
        let rate = DataRate.kilobitsPerSecond(1500)
        #expect(rate.bitsPerSecond == 1_500_000)
        #expect(rate.duration(ofBytes: 1500) == .milliseconds(8))
        #expect(rate.bytes(in: .milliseconds(8)) == 1500)
        #expect(DataRate(bytes: 1500, over: .milliseconds(8)) == rate)
        #expect(DataRate(bytes: 1500, over: .zero) == nil)
        #expect(rate * 0.5 == .kilobitsPerSecond(750))
        #expect(rate.description == "1500.0 kbps")
        #expect(DataRate.zero.duration(ofBytes: 1) == nil)
    }
}
