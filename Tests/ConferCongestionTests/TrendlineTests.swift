import ConferCongestion
import ConferMedia
import Testing

@Suite struct TrendlineTests {
    /// Feeds `count` groups sent `spacing` apart whose one-way delay is `delay(i)` ms, and
    /// returns the state after each.
    static func run(count: Int, spacing: TimeDelta, configuration: TrendlineEstimator.Configuration = .init(),
                    delay: (Int) -> Double) -> [BandwidthUsage] {
        var trendline = TrendlineEstimator(configuration: configuration)
        var states: [BandwidthUsage] = []
        var previousArrival = Timestamp.zero + .milliseconds(Int64(delay(0)))
        for i in 1 ..< count {
            let send = Timestamp.zero + spacing * Int64(i)
            let arrival = send + TimeDelta.seconds(delay(i) / 1000)
            states.append(trendline.update(arrivalDelta: arrival - previousArrival, sendDelta: spacing, arrivalTime: arrival))
            previousArrival = arrival
        }
        return states
    }

    @Test func linearlyGrowingDelayIsOveruse() {
        // One more millisecond of queue every 10 ms group: a sender 10 % over capacity.
        let states = Self.run(count: 200, spacing: .milliseconds(10)) { 30 + Double($0) }
        let first = states.firstIndex(of: .overusing)
        #expect(first != nil && first! >= 19 && first! < 30)  // once the 20-point window fills
        #expect(states[first!...].allSatisfy { $0 == .overusing })
    }

    @Test func constantDelayWithJitterStaysNormal() {
        var random = SeededRandom(seed: 42)
        let jitter = (0 ..< 3000).map { _ in 40 + (random.nextUnit() * 10 - 5) }
        // Video frames every 33 ms, each arriving 35–45 ms after it left.
        let states = Self.run(count: jitter.count, spacing: .milliseconds(33)) { jitter[$0] }
        #expect(!states.contains(.overusing))
        #expect(Double(states.filter { $0 == .normal }.count) / Double(states.count) > 0.99)
    }

    @Test func shrinkingDelayIsUnderuse() {
        let states = Self.run(count: 100, spacing: .milliseconds(10)) { 300 - 2 * Double($0) }
        #expect(states.suffix(60).allSatisfy { $0 == .underusing })
        #expect(!states.contains(.overusing))
    }

    @Test func theThresholdAdaptsWithinItsBounds() {
        var trendline = TrendlineEstimator()
        #expect(trendline.threshold == 12.5)
        var time = Timestamp.zero
        for _ in 0 ..< 100 {
            time += .milliseconds(10)
            trendline.update(arrivalDelta: .milliseconds(10), sendDelta: .milliseconds(10), arrivalTime: time)
        }
        // A flat delay curve pulls γ down to its floor.
        #expect(trendline.threshold == 6)
        #expect(trendline.modifiedTrend == 0)
        #expect(trendline.state == .normal)
    }
}

/// Trendless jitter as netsim makes it (normal, order kept: a late frame holds back the
/// ones behind it) against a queue that grows under the same jitter.
@Suite struct TrendlineJitterTests {
    /// One-way delays (ms) of frames sent every 33 ms: 40 ms, a normal variation of
    /// `jitter` ms cut at ±3 deviations, order kept, plus `growth` ms more per frame.
    static func delays(count: Int, jitter: Double, growth: Double = 0, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        var delays: [Double] = []
        var previousArrival = -Double.infinity
        for i in 0 ..< count {
            let send = 33 * Double(i)
            let offset = min(max(random.nextGaussian(deviation: jitter), -3 * jitter), 3 * jitter)
            let arrival = max(send + max(40 + offset + growth * Double(i), 0), previousArrival)
            previousArrival = arrival
            delays.append(arrival - send)
        }
        return delays
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func trendlessJitterIsNeverOveruse(seed: UInt64) {
        // 20 ms of jitter for 60 s of 30 fps video.
        let delays = Self.delays(count: 1800, jitter: 20, seed: seed)
        let states = TrendlineTests.run(count: delays.count, spacing: .milliseconds(33)) { delays[$0] }
        #expect(!states.contains(.overusing))
    }

    @Test func withoutTheJitterFloorTheSameJitterIsTakenForOveruse() {
        // libwebrtc's detector (no floor) on the same paths: its threshold rests near 6 and
        // the trend's jitter spikes cross it.
        var libwebrtc = TrendlineEstimator.Configuration()
        libwebrtc.jitterFloorGain = 0
        var overuses = 0
        for seed in 1 ... 5 as ClosedRange<UInt64> {
            let delays = Self.delays(count: 1800, jitter: 20, seed: seed)
            let states = TrendlineTests.run(count: delays.count, spacing: .milliseconds(33), configuration: libwebrtc) { delays[$0] }
            overuses += states.indices.dropFirst().filter { states[$0] == .overusing && states[$0 - 1] != .overusing }.count
        }
        #expect(overuses >= 3)
    }

    @Test func theFloorFollowsTheMeasuredVariation() {
        var trendline = TrendlineEstimator()
        let delays = Self.delays(count: 600, jitter: 20, seed: 9)
        var time = Timestamp.zero
        for i in 1 ..< delays.count {
            time += .milliseconds(33)
            trendline.update(arrivalDelta: .seconds((33 + delays[i] - delays[i - 1]) / 1000), sendDelta: .milliseconds(33),
                             arrivalTime: time)
        }
        #expect(trendline.delayVariation > 8 && trendline.delayVariation < 30)
        #expect(trendline.threshold >= 0.75 * trendline.delayVariation - 1e-9)
        #expect(trendline.threshold > 6)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aQueueGrowingUnderTheSameJitterIsStillOveruse(seed: UInt64) {
        // A sender 15 % over capacity: 5 ms more queue every 33 ms frame.
        let delays = Self.delays(count: 150, jitter: 20, growth: 5, seed: seed)
        let states = TrendlineTests.run(count: delays.count, spacing: .milliseconds(33)) { delays[$0] }
        let first = states.firstIndex(of: .overusing)
        // Within two seconds of frames.
        #expect(first.map { $0 < 60 } == true, "first overuse at frame \(first.map(String.init) ?? "never")")
    }
}

@Suite struct InterArrivalTests {
    @Test func packetsWithinFiveMillisecondsFormOneGroup() {
        var interArrival = InterArrival()
        var samples: [InterArrival.Deltas] = []
        // Frames of three packets sent 1 ms apart every 33 ms; the link spaces them 2 ms
        // apart on arrival, and every frame arrives 1 ms later than the one before.
        for frame in 0 ..< 5 {
            for packet in 0 ..< 3 {
                let send = Timestamp.milliseconds(Int64(33 * frame + packet))
                let arrival = send + .milliseconds(20 + Int64(frame) + Int64(packet))
                if let deltas = interArrival.add(sendTime: send, arrivalTime: arrival, size: 1000 + packet, at: arrival) {
                    samples.append(deltas)
                }
            }
        }
        // Group n completes when group n+1 starts: 5 frames → 3 pairs so far.
        #expect(samples.count == 3)
        #expect(samples.allSatisfy { $0.sendDelta == .milliseconds(33) && $0.arrivalDelta == .milliseconds(34) && $0.sizeDelta == 0 })
    }

    @Test func aBurstQueuedBehindAGroupJoinsIt() {
        var interArrival = InterArrival()
        _ = interArrival.add(sendTime: .milliseconds(0), arrivalTime: .milliseconds(50), size: 100, at: .milliseconds(50))
        // Sent 10 ms later but arriving 1 ms after (it queued): the same burst.
        #expect(interArrival.add(sendTime: .milliseconds(10), arrivalTime: .milliseconds(51), size: 100, at: .milliseconds(51)) == nil)
        #expect(interArrival.add(sendTime: .milliseconds(20), arrivalTime: .milliseconds(52), size: 100, at: .milliseconds(52)) == nil)
        // A packet that arrives at its own pace starts a new group; the next one closes it.
        #expect(interArrival.add(sendTime: .milliseconds(40), arrivalTime: .milliseconds(90), size: 100, at: .milliseconds(90)) == nil)
        let deltas = interArrival.add(sendTime: .milliseconds(80), arrivalTime: .milliseconds(130), size: 100, at: .milliseconds(130))
        #expect(deltas == InterArrival.Deltas(sendDelta: .milliseconds(20), arrivalDelta: .milliseconds(38), sizeDelta: -200))
    }

    @Test func reorderedPacketsAreSkipped() {
        var interArrival = InterArrival()
        _ = interArrival.add(sendTime: .milliseconds(100), arrivalTime: .milliseconds(150), size: 100, at: .milliseconds(150))
        #expect(interArrival.add(sendTime: .milliseconds(90), arrivalTime: .milliseconds(151), size: 100, at: .milliseconds(151)) == nil)
        _ = interArrival.add(sendTime: .milliseconds(110), arrivalTime: .milliseconds(160), size: 100, at: .milliseconds(160))
        let deltas = interArrival.add(sendTime: .milliseconds(120), arrivalTime: .milliseconds(170), size: 100, at: .milliseconds(170))
        #expect(deltas?.sendDelta == .milliseconds(10))
        #expect(deltas?.sizeDelta == 0)  // the reordered packet was not counted
    }
}
