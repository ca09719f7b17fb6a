import Testing
import Confer
import ConferMedia
import ConferRender
import ConferJobs

@Suite struct RenderJobTests {
    /// `count` clips of 2 s at 30 fps, small so the test stays quick.
    func clips(_ dir: TemporaryDirectory, count: Int) throws -> [String] {
        try (0..<count).map { try dir.clip("in\($0).y4m", index: $0, frames: 60, width: 160, height: 90) }
    }

    @Test func eightViewsShareTheBudgetAtFifteenEach() throws {
        let dir = try TemporaryDirectory("render8")
        let inputs = try clips(dir, count: 8)
        let report = try RenderJob.run(inputs: inputs, options: RenderOptions(viewWidth: 160, viewHeight: 90, speaker: nil))
        #expect(report.refreshes == 120)
        #expect(report.isOverloaded)
        #expect(report.fairRate == 15)
        #expect(report.overloadSummary.contains("exceeds the budget of 120"))
        for view in report.views {
            #expect(view.framesReceived == 60)
            #expect(abs(view.drawnFPS - 15) <= 1.5, "\(view.view): \(view.drawnFPS) fps")
            #expect(view.droppedBudget > 20, "\(view.view)")
        }
        let totalDrawn = report.views.map(\.framesDrawn).reduce(0, +)
        #expect(totalDrawn <= 2 * 120)
        #expect(report.statistics.views.count == 8)
    }

    @Test func theActiveSpeakerKeepsItsFullRate() throws {
        let dir = try TemporaryDirectory("render8s")
        let inputs = try clips(dir, count: 8)
        let report = try RenderJob.run(inputs: inputs, options: RenderOptions(viewWidth: 160, viewHeight: 90, speaker: 0))
        #expect(report.views[0].priority == .high)
        #expect(report.views[0].drawnFPS >= 28, "\(report.views[0].drawnFPS)")
        // The other seven share the 90 draws/s left: about 12.9 each.
        for view in report.views.dropFirst() {
            #expect(abs(view.drawnFPS - 90.0 / 7) <= 1.5, "\(view.view): \(view.drawnFPS) fps")
        }
        #expect(report.isOverloaded)
    }

    @Test func fourViewsFitAtThirtyEach() throws {
        let dir = try TemporaryDirectory("render4")
        let inputs = try clips(dir, count: 4)
        let report = try RenderJob.run(inputs: inputs, options: RenderOptions(viewWidth: 160, viewHeight: 90))
        #expect(!report.isOverloaded)
        for view in report.views {
            #expect(view.framesDrawn == 60, "\(view.view)")
            #expect(abs(view.drawnFPS - 30) < 0.01)
            #expect(view.droppedBudget == 0 && view.droppedSuperseded == 0)
        }
        #expect(report.overloadSummary.contains("fits the budget"))
    }

    @Test func viewsAreReallyDrawn() throws {
        let dir = try TemporaryDirectory("render-draw")
        let input = try dir.clip("in.y4m", index: 2, frames: 3, width: 160, height: 90)
        let report = try RenderJob.run(inputs: [input], options: RenderOptions(duration: 0.1, viewWidth: 160, viewHeight: 90))
        #expect(report.views[0].framesDrawn == 3)
        #expect(report.statistics.views[0].drawFailures == 0)
        #expect(report.statistics.totalDraws == 3)
    }

    @Test func badOptionsAreErrors() throws {
        let dir = try TemporaryDirectory("render-bad")
        let input = try dir.clip("in.y4m", index: 0, frames: 2, width: 160, height: 90)
        #expect(throws: (any Error).self) { try RenderJob.run(inputs: [input], options: RenderOptions(budget: 0)) }
        #expect(throws: (any Error).self) { try RenderJob.run(inputs: [input], options: RenderOptions(refreshRate: 0)) }
        #expect(throws: JobError.self) { try RenderJob.run(inputs: [input], options: RenderOptions(speaker: 3)) }
        #expect(throws: JobError.self) { try RenderJob.run(inputs: []) }
    }
}
