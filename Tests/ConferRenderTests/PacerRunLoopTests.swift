import ConferMedia
import Testing
@testable import ConferRender

/// The time limit reports a run loop that never finishes; the waits for it to sleep are
/// bounded as well, because a loop of `Task.yield()` never notices the limit's cancellation.
@Suite(.timeLimit(.minutes(1)))
struct PacerRunLoopTests {
    struct Draw: Hashable { var tick: Int64; var drawn: [ViewID] }

    static func makeHarness() throws -> PacerHarness {
        let h = try PacerHarness(views: 8, fps: 30)
        try h.pacer.setPriority(.high, for: 3)
        try h.pacer.setFrameRateCap(12, for: 5)
        h.sources[1].fps = 24
        h.sources[2].offset = 7_000
        return h
    }

    @Test func runOnAManualClockMatchesDirectRefreshes() async throws {
        let direct = try Self.makeHarness()
        direct.run(seconds: 2)
        let expected = direct.results.map { Draw(tick: $0.tick, drawn: $0.drawn) }

        let clock = ManualClock()
        // The last refresh of the two seconds: the loop returns after it, so the clock
        // stepping below stops exactly there.
        let end = try RefreshSchedule(rate: 60).deadline(ofTick: 119)
        let task = Task { () throws -> ([Draw], PacerStatistics) in
            let h = try Self.makeHarness()
            var log: [Draw] = []
            try await h.pacer.run(clock: clock, until: end,
                                  beforeRefresh: { h.feed(until: $0) },
                                  afterRefresh: { log.append(Draw(tick: $0.tick, drawn: $0.drawn)) })
            return (log, h.pacer.statistics())
        }
        // Step the clock in 5 ms strides (not a multiple of the 16.7 ms refresh), waiting
        // each time for the loop to be asleep on its next deadline.
        while clock.now < end {
            var spins = 0
            while clock.sleeperCount == 0 {
                await Task.yield()
                spins += 1
                try #require(spins < 1_000_000, "run loop never slept")
            }
            clock.advance(to: min(end, clock.now + .milliseconds(5)))
        }
        let (log, stats) = try await task.value
        #expect(log.count == 120)
        #expect(log == expected)
        #expect(stats.totalDraws == direct.pacer.statistics().totalDraws)
    }

    @Test func runStopsWhenCancelled() async throws {
        let clock = ManualClock()
        let task = Task { () throws -> Int in
            let h = try PacerHarness(views: 1, fps: 30)
            var refreshes = 0
            try await h.pacer.run(clock: clock, afterRefresh: { _ in refreshes += 1 })
            return refreshes
        }
        var spins = 0
        while clock.sleeperCount == 0 {
            await Task.yield()
            spins += 1
            try #require(spins < 1_000_000, "run loop never slept")
        }
        task.cancel()
        clock.advance(by: .milliseconds(17))
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
