import ConferCongestion
import ConferMedia
import ConferRTP
import Testing

/// End-to-end behaviour against the bottleneck model: 1200-byte packets at the target
/// rate, a drop-tail queue of 64 kB, 25 ms each way, transport-cc every 100 ms.
@Suite struct ScenarioTests {
    static func link(capacity: [(from: Timestamp, rate: DataRate)], start: DataRate) -> BottleneckLink {
        BottleneckLink(settings: .init(capacity: capacity),
                       estimator: SendSideBandwidthEstimator(configuration: .init(startBitrate: start)))
    }

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }

    @Test func settlesJustBelowAOneMegabitLink() {
        let capacity = DataRate.megabitsPerSecond(1)
        var link = Self.link(capacity: [(.zero, capacity)], start: .kilobitsPerSecond(300))
        link.run(until: .seconds(30))

        // Start-up probes find the link within a couple of seconds, not 8 %/s.
        #expect(link.target(at: 2) >= capacity * 0.8)
        // From 10 s on it saws between 0.8 C and a brief few percent above C (the
        // overshoot the detector needs to notice the queue), averaging below C.
        let settled = link.targets(from: 10, to: 30).map { Double($0.bitsPerSecond) / 1_000_000 }
        #expect(settled.count > 190)
        #expect(settled.min()! >= 0.8)
        #expect(settled.max()! <= 1.05)
        #expect(Self.mean(settled) > 0.85 && Self.mean(settled) < 1.0)
        #expect(Double(settled.filter { $0 > 1.0 }.count) / Double(settled.count) < 0.1)
        // No sustained loss and no standing queue in the last 10 s.
        #expect(link.dropFraction(from: 20, to: 30) < 0.01)
        let delays = link.queueDelays(from: 20, to: 30)
        #expect(delays.max()! < 150)
        #expect(Self.mean(link.queueDelays(from: 25, to: 30)) < Self.mean(link.queueDelays(from: 20, to: 25)) + 10)
        let snapshot = link.estimator.snapshot
        #expect(snapshot.probeResults >= 2)
        #expect(snapshot.packetsLost == 0)
        #expect(snapshot.acknowledgedBitrate.map { $0 > capacity * 0.75 && $0 < capacity * 1.05 } == true)
    }

    @Test func comesDownFromTwoMegabitsOntoAHalfMegabitLink() {
        let capacity = DataRate.kilobitsPerSecond(500)
        var link = Self.link(capacity: [(.zero, capacity)], start: .megabitsPerSecond(2))
        link.run(until: .seconds(30))

        #expect(link.target(at: 2.5) < capacity)
        // At this rate the additive increase is ~3 %/s of C, so the overshoot before the
        // detector reacts is a little larger than at 1 Mbit/s, and as brief.
        let settled = link.targets(from: 1, to: 30)
        #expect(settled.max()! <= capacity * 1.08)
        #expect(Double(settled.filter { $0 > capacity }.count) / Double(settled.count) < 0.2)
        #expect(Self.mean(settled.map { Double($0.bitsPerSecond) }) < Double(capacity.bitsPerSecond) * 0.95)
        // The start-up burst overflows the queue once; after that nothing is lost and
        // the standing queue it built has drained.
        #expect(link.dropFraction(from: 0, to: 1) > 0.05)
        #expect(link.dropFraction(from: 5, to: 30) == 0)
        #expect(link.queueDelays(from: 10, to: 30).max()! < 150)
    }

    @Test func followsACapacityDropAndTheQueueDrains() {
        let high = DataRate.megabitsPerSecond(2)
        let low = DataRate.kilobitsPerSecond(500)
        var link = Self.link(capacity: [(.zero, high), (.seconds(15), low)], start: .kilobitsPerSecond(300))
        link.run(until: .seconds(30))

        #expect(link.targets(from: 8, to: 15).allSatisfy { $0 >= high * 0.8 && $0 <= high * 1.05 })
        // Within 3 s of the drop the target is under the new capacity, and stays near it.
        #expect(link.target(at: 18) < low)
        #expect(link.targets(from: 18, to: 30).allSatisfy { $0 >= low * 0.5 && $0 <= low * 1.05 })
        // The queue that built during the drop is gone a few seconds later.
        #expect(link.queueDelays(from: 15, to: 17).max()! > 500)
        #expect(link.queueDelays(from: 22, to: 30).max()! < 100)
        #expect(link.dropFraction(from: 20, to: 30) == 0)
    }

    @Test func rembCapsTheTarget() {
        var link = Self.link(capacity: [(.zero, .megabitsPerSecond(5))], start: .kilobitsPerSecond(300))
        let cap = DataRate.kilobitsPerSecond(400)
        link.estimator.onREMB(bitrate: cap, at: .zero)
        link.run(until: .seconds(10))
        #expect(link.targets(from: 0, to: 10).allSatisfy { $0 <= cap })
        #expect(link.target(at: 10) >= cap * 0.95)
        #expect(link.estimator.snapshot.limitedBy == .receiverEstimate)
        #expect(link.estimator.snapshot.receiverEstimate == cap)

        // A higher REMB lets it climb again (at the loss-based 8 %/s once start-up is over).
        link.estimator.onREMB(bitrate: .megabitsPerSecond(3), at: link.now)
        link.run(until: .seconds(20))
        #expect(link.target(at: 20) > cap * 1.5)
        #expect(link.targets(from: 10, to: 20).allSatisfy { $0 <= .megabitsPerSecond(3) })
    }

    @Test func wrappingSequenceNumbersAndAReceiverClockFarAwayChangeNothing() {
        var settings = BottleneckLink.Settings(capacity: .megabitsPerSecond(1))
        settings.firstSequenceNumber = 65_000
        settings.receiverClockOffset = .seconds(500_000)
        var shifted = BottleneckLink(settings: settings, estimator: SendSideBandwidthEstimator(
            configuration: .init(startBitrate: .kilobitsPerSecond(300))))
        shifted.run(until: .seconds(10))
        var plain = Self.link(capacity: [(.zero, .megabitsPerSecond(1))], start: .kilobitsPerSecond(300))
        plain.run(until: .seconds(10))
        #expect(shifted.targets(from: 0, to: 10) == plain.targets(from: 0, to: 10))
        #expect(shifted.estimator.snapshot.unknownFeedback == 0)
        #expect(shifted.estimator.snapshot.packetsAcknowledged > 800)
    }
}

/// Receive-side estimation: the receiver runs GCC on abs-send-time and caps the sender
/// with REMB; the sender has no transport-cc.
@Suite struct RemoteEstimationTests {
    @Test func rembFromTheReceiverSettlesBelowTheLink() {
        let capacity = DataRate.megabitsPerSecond(1)
        var settings = BottleneckLink.Settings(capacity: capacity)
        settings.remb = true
        settings.receiverClockOffset = .seconds(-7)  // the receiver's epoch is its own
        var link = BottleneckLink(settings: settings, estimator: SendSideBandwidthEstimator(
            configuration: .init(startBitrate: .kilobitsPerSecond(300), probing: false)))
        link.run(until: .seconds(40))

        // No estimate for the first five seconds (it starts from what arrives), then ~8 %/s.
        #expect(link.rembs.first.map { $0.time >= .seconds(5) && $0.rate < .kilobitsPerSecond(330) } == true)
        #expect(link.rembs.count > 100)
        let settled = link.rembs.filter { $0.time >= .seconds(25) }.map(\.rate)
        #expect(settled.min()! >= capacity * 0.75)
        #expect(settled.max()! <= capacity * 1.08)
        #expect(link.targets(from: 25, to: 40).allSatisfy { $0 <= capacity * 1.08 })
        #expect(link.dropFraction(from: 25, to: 40) < 0.01)
        #expect(link.queueDelays(from: 25, to: 40).max()! < 150)
        #expect(link.estimator.snapshot.limitedBy == .receiverEstimate)
        #expect(link.estimator.snapshot.delayBasedBitrate == nil)
    }

    @Test func aDropIsReportedAtOnceAndOtherwiseEvery200Milliseconds() {
        var remote = RemoteBitrateEstimator()
        var time = Timestamp.seconds(1)
        var send = Timestamp.zero
        // 1 Mbit/s steady for 7.7 s: the first estimate is the received rate.
        for _ in 0 ..< 800 {
            remote.onPacketReceived(sendTime: RTPAbsoluteSendTime(send), size: 1200, at: time)
            time += TimeDelta(microseconds: 9600)
            send += TimeDelta(microseconds: 9600)
        }
        let first = remote.rembToSend(at: time)
        // It started at t = 7 s (a full 1 s rate window, then five seconds) from what
        // arrived, 1 Mbit/s, and has climbed at 8 %/s for 1.7 s since: 1.08^1.7 ≈ 1.14.
        #expect(first.map { $0 > .kilobitsPerSecond(1100) && $0 < .kilobitsPerSecond(1170) } == true)
        #expect(remote.rembToSend(at: time + .milliseconds(100)) == nil)
        #expect(remote.rembToSend(at: time + .milliseconds(200)) != nil)
        // Now the path queues: the same packets arrive 15 ms apart; overuse cuts the estimate.
        var cut: DataRate?
        for _ in 0 ..< 100 {
            remote.onPacketReceived(sendTime: RTPAbsoluteSendTime(send), size: 1200, at: time)
            time += .milliseconds(15)
            send += TimeDelta(microseconds: 9600)
            if remote.usage == .overusing, cut == nil { cut = remote.rembToSend(at: time) }
        }
        #expect(cut.map { $0 < first! * 0.97 } == true)
    }
}

/// Trendless jitter on an uncapped path, and jitter on a capped one: GCC must tell them apart.
@Suite struct JitterScenarioTests {
    static func link(capacity: DataRate, jitter: Int, seed: UInt64, maximum: DataRate = .kilobitsPerSecond(1500)) -> BottleneckLink {
        var settings = BottleneckLink.Settings(capacity: capacity)
        settings.jitter = .milliseconds(Int64(jitter))
        settings.seed = seed
        return BottleneckLink(settings: settings, estimator: SendSideBandwidthEstimator(configuration: .init(
            startBitrate: .kilobitsPerSecond(300), maximumBitrate: maximum)))
    }

    /// The old detector cut a 1.5 Mbit/s ceiling to a 0.74–0.97 mean on these links
    /// (start-up bursts measured the jitter, and the trend's jitter spikes crossed a
    /// threshold resting at its floor of 6); this holds ≥ 0.9.
    @Test(arguments: [20, 30], [1, 2, 3, 4] as [UInt64])
    func anUncappedLinkWithJitterKeepsTheEstimateNearTheCeiling(jitter: Int, seed: UInt64) {
        let ceiling = DataRate.kilobitsPerSecond(1500)
        var link = Self.link(capacity: .megabitsPerSecond(20), jitter: jitter, seed: seed, maximum: ceiling)
        link.run(until: .seconds(30))
        let settled = link.targets(from: 3, to: 30).map { Double($0.bitsPerSecond) / Double(ceiling.bitsPerSecond) }
        #expect(settled.count > 250)
        #expect(link.target(at: 3) >= ceiling * 0.8)
        #expect(ScenarioTests.mean(settled) >= 0.9)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aCappedLinkWithJitterStillSettlesBelowItsCapacity(seed: UInt64) {
        let capacity = DataRate.megabitsPerSecond(1)
        var link = Self.link(capacity: capacity, jitter: 20, seed: seed, maximum: .megabitsPerSecond(3))
        link.run(until: .seconds(30))
        let settled = link.targets(from: 10, to: 30).map { Double($0.bitsPerSecond) / Double(capacity.bitsPerSecond) }
        // Settled within 10 s: sawing around the capacity, below it on average, no loss,
        // and a queue that does not grow.
        #expect(settled.count > 190)
        #expect(settled.max()! <= 1.15)
        #expect(ScenarioTests.mean(settled) > 0.8 && ScenarioTests.mean(settled) < 1.0)
        #expect(link.dropFraction(from: 10, to: 30) < 0.01)
        #expect(link.queueDelays(from: 10, to: 30).max()! < 150)
        #expect(ScenarioTests.mean(link.queueDelays(from: 20, to: 30)) < ScenarioTests.mean(link.queueDelays(from: 10, to: 20)) + 10)
    }

    /// From a 300 kbit/s start to 80 % of a 2.5 Mbit/s link. Start-up probing finds 1.8
    /// Mbit/s in 125 ms; the next burst (3.6 Mbit/s) shares the bottleneck with this model's
    /// media, sent untagged at 1.8 Mbit/s meanwhile, so it measures its share (1.69 Mbit/s),
    /// and from there the rate climbs at 8 %/s: 2.7 s on a clean path, 0.6–3.9 s under 20 ms
    /// of jitter. (The pipelines' transport tags media sent during a burst as part of it;
    /// a pacer that gives a burst the link to itself, as libwebrtc's does, would do better.)
    @Test(arguments: [0, 20], [1, 2, 3] as [UInt64])
    func rampsUpFromALowStartToATwoAndAHalfMegabitLink(jitter: Int, seed: UInt64) throws {
        let capacity = DataRate.kilobitsPerSecond(2500)
        var link = Self.link(capacity: capacity, jitter: jitter, seed: seed, maximum: .megabitsPerSecond(5))
        link.run(until: .seconds(10))
        let reached = try #require(link.targets.first { $0.rate >= capacity * 0.8 }?.time)
        #expect(reached <= (jitter == 0 ? .seconds(3) : .seconds(5)), "80 % reached at \(reached)")
        // And it settles below the link rather than above it.
        #expect(ScenarioTests.mean(link.targets(from: 5, to: 10).map { Double($0.bitsPerSecond) }) < Double(capacity.bitsPerSecond))
    }
}
