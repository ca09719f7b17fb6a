@testable import ConferCongestion
import ConferMedia
import ConferRTP
import Foundation
import Testing

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

    @Test func theReceiveSideReusesItsBuffersToo() {
        var settings = BottleneckLink.Settings(capacity: .megabitsPerSecond(1))
        settings.remb = true
        var link = BottleneckLink(settings: settings, estimator: SendSideBandwidthEstimator(
            configuration: .init(startBitrate: .kilobitsPerSecond(300), probing: false)))
        link.run(until: .seconds(2))
        let before = link.remote.storageFingerprint
        link.run(until: .seconds(12))
        #expect(link.remote.storageFingerprint == before)
        #expect(link.remote.hasEstimate)
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
        // Rates from the wire can be absurd: arithmetic saturates instead of trapping.
        #expect(DataRate(bitsPerSecond: .max) * 2 == DataRate(bitsPerSecond: .max))
        #expect(DataRate.bitsPerSecond(1).duration(ofBytes: .max) == TimeDelta(microseconds: .max))
    }
}

@Suite struct HostileInputTests {
    @Test func absurdREMBAndReportsNeitherTrapNorEscapeTheBounds() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(300)))
        estimator.onREMB(bitrate: DataRate(bitsPerSecond: .max), at: .zero)
        estimator.onReceiverReport(fractionLost: -3, rtt: TimeDelta(microseconds: .max), at: .milliseconds(10))
        estimator.onReceiverReport(fractionLost: .nan, rtt: nil, at: .milliseconds(20))
        estimator.onPacketSent(transportSequenceNumber: 1, size: -5, at: .milliseconds(30))
        #expect(estimator.targetBitrate <= estimator.configuration.maximumBitrate)
        #expect(estimator.targetBitrate >= estimator.configuration.minimumBitrate)
        estimator.onREMB(bitrate: .kilobitsPerSecond(1), at: .milliseconds(40))
        #expect(estimator.targetBitrate == estimator.configuration.minimumBitrate)
    }

    @Test func feedbackForEveryNumberAtOnceIsBounded() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(startBitrate: .kilobitsPerSecond(300)))
        for number in 0 ..< 100 as Range<UInt16> {
            estimator.onPacketSent(transportSequenceNumber: number, size: 1200, at: .milliseconds(Int64(number)))
        }
        // 65535 statuses, every one received, deltas of the largest size.
        let message = RTCPTransportFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65_500, packetStatusCount: 65_535, referenceTime: 0,
            feedbackPacketCount: 0,
            receivedPackets: (0 ..< 65_535).map { .init(sequenceNumber: 65_500 &+ UInt16($0), deltaTicks: .max) })
        estimator.onTransportFeedback(message, at: .seconds(1))
        let snapshot = estimator.snapshot
        #expect(snapshot.packetsAcknowledged == 100)
        #expect(snapshot.unknownFeedback == 65_435)
    }
}
