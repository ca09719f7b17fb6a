import ConferJitter
import ConferMedia
import Testing

@Suite("Jitter estimator and freeze detector")
struct VideoEstimatorTests {
    @Test("the estimate is the nearest-rank 95th percentile of the window, and forgets old samples")
    func percentile() {
        var estimator = JitterEstimator(configuration: .init(window: .seconds(2), maxSamples: 1000))
        // 100 samples, 0…99 ms, shuffled by a fixed stride.
        for index in 0 ..< 100 {
            let value = Int64((index * 37) % 100)
            estimator.addSample(.milliseconds(value), at: .milliseconds(Int64(index)))
        }
        #expect(estimator.sampleCount == 100)
        #expect(estimator.estimate == .milliseconds(94))
        // After the window, only newer samples count.
        estimator.addSample(.milliseconds(5), at: .milliseconds(2050))
        #expect(estimator.sampleCount == 51)
        estimator.update(at: .seconds(10))
        #expect(estimator.sampleCount == 0 && estimator.estimate == .zero)
    }

    @Test("the sample count is capped, oldest first")
    func capped() {
        var estimator = JitterEstimator(configuration: .init(window: .seconds(100), maxSamples: 10))
        for index in 0 ..< 30 { estimator.addSample(.milliseconds(Int64(index)), at: .milliseconds(Int64(index))) }
        #expect(estimator.sampleCount == 10)
        #expect(estimator.estimate == .milliseconds(29))
        estimator.addSample(.milliseconds(-5), at: .milliseconds(31))   // negative counts as zero
        #expect(estimator.sampleCount == 10 && estimator.estimate == .milliseconds(29))
    }

    @Test("freezes follow the W3C definition exactly on a synthetic render sequence")
    func freezes() {
        var detector = FreezeDetector()
        var time = Timestamp.zero
        var expectedFreezes: [TimeDelta] = []
        func render(after gap: TimeDelta) -> FreezeDetector.Interval {
            time += gap
            return detector.frameRendered(at: time)
        }
        #expect(render(after: .zero) == .smooth)
        for _ in 0 ..< 40 { #expect(render(after: .milliseconds(33)) == .smooth) }
        // Average over the last 30 durations, this one included: (29·33 + d)/30. The threshold
        // max(3·avg, avg + 150 ms) is met from d = 188.36 ms: 188 ms is not a freeze, 189 is.
        #expect(render(after: .milliseconds(188)) == .smooth)
        for _ in 0 ..< 30 { _ = render(after: .milliseconds(33)) }
        #expect(render(after: .milliseconds(189)) == .freeze(.milliseconds(189)))
        expectedFreezes.append(.milliseconds(189))
        for _ in 0 ..< 30 { _ = render(after: .milliseconds(33)) }
        // A one-second stall is a freeze; a six-second one is a pause, not a freeze.
        #expect(render(after: .seconds(1)) == .freeze(.seconds(1)))
        expectedFreezes.append(.seconds(1))
        for _ in 0 ..< 30 { _ = render(after: .milliseconds(33)) }
        #expect(render(after: .seconds(6)) == .pause(.seconds(6)))
        // At 10 fps the 3× rule binds: 300 ms is a freeze only once the average is 100 ms.
        for _ in 0 ..< 30 { _ = render(after: .milliseconds(100)) }
        #expect(render(after: .milliseconds(299)) == .smooth)
        for _ in 0 ..< 30 { _ = render(after: .milliseconds(100)) }
        #expect(render(after: .milliseconds(320)) == .smooth)   // avg 107.3: threshold 322
        for _ in 0 ..< 30 { _ = render(after: .milliseconds(100)) }
        #expect(render(after: .milliseconds(330)) == .freeze(.milliseconds(330)))
        expectedFreezes.append(.milliseconds(330))
        #expect(detector.freezeCount == expectedFreezes.count)
        #expect(detector.totalFreezesDuration == expectedFreezes.reduce(.zero, +))
        #expect(detector.pauseCount == 1 && detector.totalPausesDuration == .seconds(6))
        #expect(detector.framesRendered == 1 + 40 + 1 + 30 + 1 + 30 + 1 + 30 + 1 + 30 + 1 + 30 + 1 + 30 + 1)
    }
}
