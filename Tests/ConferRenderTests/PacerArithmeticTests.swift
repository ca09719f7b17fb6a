import ConferMedia
import Testing
@testable import ConferRender

@Suite struct PacerArithmeticTests {
    @Test func fourViewsAtThirtyFillTheBudgetExactly() throws {
        let h = try PacerHarness(views: 4, fps: 30)
        h.run(seconds: 10)
        for v in 0..<4 {
            let perSecond = h.drawsPerSecond(ViewID(v))
            #expect(perSecond.allSatisfy { abs($0 - 30) <= 1 }, "view \(v): \(perSecond)")
            let stats = try #require(h.statistics(ViewID(v)))
            #expect(stats.framesDrawn == 300 && stats.framesReceived == 300)
            #expect(stats.dropped.total == 0, "\(stats.dropped)")
            #expect(stats.drawnLastSecond == 30)
            #expect(stats.budgetShare == 0.25)
            #expect(abs(stats.averageDrawnFPS - 30) < 0.01)
        }
        let stats = h.pacer.statistics()
        #expect(stats.drawsLastSecond == 120 && stats.utilization == 1.0)
        #expect(stats.totalDraws == 1200 && stats.refreshes == 600)
        #expect(!stats.isOverloaded)
        #expect(stats.overload.demand == 120)
    }

    @Test func eightViewsAtThirtyGetFifteenEach() throws {
        let h = try PacerHarness(views: 8, fps: 30)
        h.run(seconds: 10)
        for v in 0..<8 {
            let perSecond = h.drawsPerSecond(ViewID(v))
            #expect(perSecond.allSatisfy { abs($0 - 15) <= 1 }, "view \(v): \(perSecond)")
            let stats = try #require(h.statistics(ViewID(v)))
            #expect((145...150).contains(stats.framesDrawn), "view \(v) drew \(stats.framesDrawn)")
            // Every frame not drawn was refused by the budget first, then replaced.
            #expect(stats.dropped.superseded == 0 && stats.dropped.frameRateCap == 0)
            #expect((145...151).contains(stats.dropped.budget), "view \(v) dropped \(stats.dropped)")
            let pending = stats.framesReceived - stats.framesDrawn - stats.dropped.total
            #expect((0...1).contains(pending), "at most one frame waits")
        }
        let stats = h.pacer.statistics()
        #expect(stats.drawsLastSecond == 120 && stats.utilization == 1.0)
        #expect(stats.isOverloaded)
        #expect(stats.overload.demand == 240)
        #expect(stats.overload.fairRate == 15)
        #expect(stats.overload.shares.allSatisfy { $0.frameRate == 15 })
        #expect(stats.overload.disableToFit == [7, 6, 5, 4])
        #expect(FramePacer.fairRate(views: 8, budget: 120) == 15)
        #expect(FramePacer.fairRate(views: 4, budget: 120) == 30)
    }

    @Test func disablingHalfTheViewsGivesTheRestFullRate() throws {
        let h = try PacerHarness(views: 8, fps: 30)
        h.run(seconds: 3)
        for v in 4..<8 { try h.pacer.setEnabled(false, for: ViewID(v)) }
        h.run(seconds: 4)
        for v in 0..<4 {
            let after = h.drawsPerSecond(ViewID(v), from: 4)
            #expect(after.allSatisfy { abs($0 - 30) <= 1 }, "view \(v): \(after)")
        }
        for v in 4..<8 {
            #expect(h.drawsPerSecond(ViewID(v), from: 3) == [0, 0, 0, 0])
            let stats = try #require(h.statistics(ViewID(v)))
            #expect(!stats.isEnabled)
            // 4 s of 30 fps arrive while disabled, plus the frame it held when disabled (if any).
            #expect((120...121).contains(stats.dropped.disabled), "\(stats.dropped)")
        }
        let stats = h.pacer.statistics()
        #expect(stats.drawsLastSecond == 120 && !stats.isOverloaded)
        #expect(stats.overload.shares.count == 4)
    }

    @Test func activeSpeakerKeepsFullRateAndNoOneStarves() throws {
        let h = try PacerHarness(views: 8, fps: 30)
        // The last view added: it loses every tie on arrival order, so only its weight helps it.
        let speaker: ViewID = 7
        try h.pacer.setPriority(.high, for: speaker)
        h.run(seconds: 10)
        let speakerRate = h.drawsPerSecond(speaker)
        #expect(speakerRate.allSatisfy { $0 == 30 }, "speaker: \(speakerRate)")
        for v in 0..<7 {
            let perSecond = h.drawsPerSecond(ViewID(v))
            #expect(perSecond.allSatisfy { abs(Double($0) - 90.0 / 7) <= 1 }, "view \(v): \(perSecond)")
            #expect(perSecond.allSatisfy { $0 >= 12 }, "view \(v) starved: \(perSecond)")
        }
        let report = h.pacer.overloadReport()
        #expect(report.shares.first { $0.view == speaker }?.frameRate == 30)
        #expect(report.shares.filter { $0.view != speaker }.allSatisfy { abs($0.frameRate - 90.0 / 7) < 1e-9 })
        #expect(!report.disableToFit.contains(speaker))
    }

    @Test func aCrowdOfHighPriorityViewsStillLeavesEveryViewDrawing() throws {
        // Strict priority would starve the low view; weights keep it drawing.
        let h = try PacerHarness(views: 6, fps: 30)
        for v in 0..<5 { try h.pacer.setPriority(.high, for: ViewID(v)) }
        try h.pacer.setPriority(.low, for: 5)
        h.run(seconds: 5)
        let low = h.drawsPerSecond(5)
        // Weight 1 of 161 gives it 120 / 161 ≈ 0.75 draws/s at least.
        #expect(low.reduce(0, +) >= 3, "low view: \(low)")
        for v in 0..<5 { #expect(h.drawsPerSecond(ViewID(v)).allSatisfy { (23...25).contains($0) }) }
    }

    @Test func frameRateCapIsHonoured() throws {
        let h = try PacerHarness(views: 2, fps: 30)
        try h.pacer.setFrameRateCap(10, for: 1)
        h.run(seconds: 5)
        #expect(h.drawsPerSecond(1) == [10, 10, 10, 10, 10])
        #expect(h.drawsPerSecond(0) == [30, 30, 30, 30, 30])
        let capped = try #require(h.statistics(1))
        #expect(capped.dropped.frameRateCap >= 98 && capped.dropped.budget == 0, "\(capped.dropped)")
        #expect(h.pacer.overloadReport().demand == 40)
        #expect(h.results.contains { $0.capped > 0 })
    }

    @Test func aFrameIsNeverDrawnTwice() throws {
        let h = try PacerHarness(views: 1, fps: 1)
        h.run(seconds: 10)
        #expect(h.drawsPerSecond(0) == [Int](repeating: 1, count: 10))
        let stats = try #require(h.statistics(0))
        #expect(stats.framesDrawn == 10 && stats.dropped.total == 0)
        #expect(h.pacer.statistics().utilization == 1.0 / 120)
    }

    @Test func aSourceFasterThanTheDisplayIsSuperseded() throws {
        let h = try PacerHarness(views: 1, fps: 120)
        h.run(seconds: 3)
        #expect(h.drawsPerSecond(0) == [60, 60, 60])
        let stats = try #require(h.statistics(0))
        #expect(stats.dropped.superseded == 180 - 1 && stats.dropped.budget == 0)
        #expect(stats.receivedLastSecond == 120)
        #expect(h.pacer.overloadReport().demand == 60, "a view draws at most once a refresh")
    }

    @Test(arguments: [(120, 60, 25), (100, 60, 8), (30, 60, 4), (240, 60, 10), (120, 144, 6)])
    func perRefreshCapAndPerSecondTotalHold(budget: Int, rate: Int, views: Int) throws {
        let h = try PacerHarness(views: views, fps: 30, drawsPerSecond: budget, refreshRate: rate)
        h.run(seconds: 4)
        let perTick = (budget + rate - 1) / rate
        #expect(h.pacer.maxDrawsPerRefresh == perTick)
        #expect(h.results.allSatisfy { $0.drawn.count <= perTick })
        let counts = h.results.map(\.drawn.count)
        var window = counts.prefix(rate).reduce(0, +)
        var worst = window
        for i in rate..<counts.count {
            window += counts[i] - counts[i - rate]
            worst = max(worst, window)
        }
        #expect(worst <= budget, "\(worst) draws in one second")
        let demand = min(views * 30, budget)
        #expect(h.pacer.statistics().drawsLastSecond >= demand - 1)
    }
}

@Suite struct PacerFairnessTests {
    @Test func aViewReturningFromDisabledBanksNoCredit() throws {
        let h = try PacerHarness(views: 8, fps: 30)
        try h.pacer.setEnabled(false, for: 0)
        h.run(seconds: 5)
        try h.pacer.setEnabled(true, for: 0)
        h.run(seconds: 3)
        // Had it kept its old place in virtual time it would take every frame (30/s) until
        // the others caught up; joining at the current virtual time gives it its share now.
        for v in 0..<8 {
            let after = h.drawsPerSecond(ViewID(v), from: 5)
            #expect(after.allSatisfy { abs($0 - 15) <= 1 }, "view \(v): \(after)")
        }
    }

    @Test func aSlowViewGetsEveryFrameUnderPressure() throws {
        let h = try PacerHarness(views: 9, fps: 30)
        h.sources[8].fps = 1
        h.run(seconds: 5)
        // Max-min fairness: the 1 fps view needs far less than its share, so it loses nothing,
        // and the eight others split the remaining 119 draws/s.
        #expect(h.drawsPerSecond(8) == [1, 1, 1, 1, 1])
        #expect(try #require(h.statistics(8)).dropped.total == 0)
        for v in 0..<8 { #expect(h.drawsPerSecond(ViewID(v)).allSatisfy { abs(Double($0) - 119.0 / 8) <= 1 }) }
    }
}
