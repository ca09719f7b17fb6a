import ConferMedia
import Testing
@testable import ConferRender

@Suite struct DrawBudgetTests {
    @Test func fullDemandGetsExactlyTheBudgetEverySecond() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<40 {
            let rate = Int(rng.next() % 240) + 1
            let budget = Int(rng.next() % 600) + 1
            var bucket = try DrawBudget(drawsPerSecond: budget, refreshRate: rate)
            var counts: [Int] = []
            for _ in 0..<(3 * rate) {
                bucket.advance(refreshes: 1)
                let n = bucket.available
                #expect(n <= bucket.maxDrawsPerRefresh)
                let spent = bucket.spend(n)
                #expect(spent)
                counts.append(n)
            }
            // After the first second (which may start with a full bucket) every second is exact.
            for start in rate..<(2 * rate) {
                let sum = counts[start..<(start + rate)].reduce(0, +)
                #expect(sum == budget, "budget \(budget) at \(rate) Hz: \(sum) in the window at \(start)")
            }
        }
    }

    @Test func anyOneSecondWindowStaysWithinBudgetWithBurstyDemand() throws {
        var rng = SeededRandom(seed: 11)
        for _ in 0..<40 {
            let rate = Int(rng.next() % 144) + 1
            let budget = Int(rng.next() % 400) + 1
            var bucket = try DrawBudget(drawsPerSecond: budget, refreshRate: rate)
            var counts: [Int] = []
            for _ in 0..<(4 * rate) {
                bucket.advance(refreshes: 1)
                // Demand comes and goes: idle stretches let credit pile up.
                let wanted = rng.next() % 3 == 0 ? 0 : Int(rng.next() % 10)
                let n = min(wanted, bucket.available)
                bucket.spend(n)
                counts.append(n)
            }
            for start in 0...(counts.count - rate) {
                let sum = counts[start..<(start + rate)].reduce(0, +)
                #expect(sum <= budget, "budget \(budget) at \(rate) Hz: \(sum) in one second")
            }
        }
    }

    @Test func refusesRatesOutOfRange() throws {
        #expect(throws: RenderError.self) { try DrawBudget(drawsPerSecond: 0, refreshRate: 60) }
        #expect(throws: RenderError.self) { try DrawBudget(drawsPerSecond: 120, refreshRate: 0) }
        #expect(throws: RenderError.self) { try FramePacer(drawsPerSecond: 120, refreshRate: 5000) }
        var bucket = try DrawBudget(drawsPerSecond: 120, refreshRate: 60)
        let spent = bucket.spend(3)
        #expect(!spent, "a refresh affords two draws, not three")
    }

    @Test func scheduleDeadlinesMapBackToTheirTicks() throws {
        for rate in [1, 24, 30, 59, 60, 90, 120, 144, 1000] {
            let schedule = try RefreshSchedule(rate: rate)
            for tick in Int64(-200)...2000 {
                let deadline = schedule.deadline(ofTick: tick)
                #expect(schedule.tick(at: deadline) == tick)
                #expect(schedule.tick(at: deadline - TimeDelta(microseconds: 1)) == tick - 1)
            }
        }
    }
}

@Suite struct TickWindowTests {
    @Test func countsTheLastSpanAcrossGaps() {
        var window = TickWindow(span: 60)
        for tick in Int64(0)..<60 { window.add(at: tick) }
        #expect(window.sum(span: 60, endingAt: 59) == 60)
        #expect(window.sum(span: 60, endingAt: 89) == 30, "ticks 30...59 are still inside")
        window.add(2, at: 100)
        #expect(window.sum(span: 60, endingAt: 100) == 2 + 19, "ticks 41...59 and two at 100")
        #expect(window.sum(span: 60, endingAt: 99) == 20, "ticks 40...59")
        window.add(at: 500)
        #expect(window.sum(span: 60, endingAt: 500) == 1)
        #expect(window.sum(span: 60, endingAt: 700) == 0)
        // The ring keeps one refresh beyond the span: events recorded for the next refresh
        // leave the current second whole.
        for tick in Int64(501)...560 { window.add(at: tick) }
        window.add(at: 561)
        #expect(window.sum(span: 60, endingAt: 560) == 60)
    }
}
