import ConferMedia
import Foundation
import Testing
@testable import ConferRender

@Suite struct PacerAPITests {
    @Test func overloadReportSizesDemandAgainstTheBudget() {
        let eight = (0..<8).map { ViewDemand(view: ViewID($0), frameRate: 30) }
        let report = OverloadReport(demands: eight, budget: 120)
        #expect(report.isOverloaded && report.demand == 240 && report.utilization == 2)
        #expect(report.fairRate == 15)
        #expect(report.disableToFit == [7, 6, 5, 4])
        #expect(report.summary.contains("15 fps") && report.summary.contains("disable 4 views"))

        // A slow view needs less than the equal share and leaves the rest to the others.
        var mixed = eight
        mixed[0].frameRate = 5
        mixed[1].priority = .low
        let second = OverloadReport(demands: mixed, budget: 120)
        #expect(abs(second.fairRate - 115.0 / 7) < 1e-9)
        #expect(second.shares[0].frameRate == 5)
        #expect(second.disableToFit.first == 1, "the low-priority view goes first")

        let fits = OverloadReport(demands: Array(eight.prefix(4)), budget: 120)
        #expect(!fits.isOverloaded && fits.fairRate == 30 && fits.disableToFit.isEmpty)
        #expect(fits.shares.allSatisfy { $0.frameRate == 30 })
    }

    @Test func statisticsRoundTripThroughJSON() throws {
        let h = try PacerHarness(views: 3, fps: 30)
        try h.pacer.setFrameRateCap(15, for: 2)
        h.run(seconds: 1)
        let stats = h.pacer.statistics()
        let data = try JSONEncoder().encode(stats)
        #expect(try JSONDecoder().decode(PacerStatistics.self, from: data) == stats)
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains("\"view\":2") && json.contains("\"frameRateCap\":15"))
    }

    @Test func refusesBadViewsAndUnknownIDs() throws {
        let pacer = try FramePacer()
        try pacer.add(RenderView(id: 1, stream: 1, width: 64, height: 64))
        #expect(throws: RenderError(.duplicateView, "view 1 is already added")) {
            try pacer.add(RenderView(id: 1, stream: 2, width: 64, height: 64))
        }
        #expect(throws: RenderError.self) { try RenderView(id: 2, stream: 1, width: 0, height: 64) }
        #expect(throws: RenderError.self) { try RenderView(id: 2, stream: 1, width: 64, height: 100_000) }
        #expect(throws: RenderError.self) { try RenderView(id: 2, stream: 1, width: 64, height: 64, frameRateCap: 0) }
        #expect(throws: RenderError.self) { try pacer.setEnabled(false, for: 5) }
        #expect(throws: RenderError.self) { try pacer.setFrameRateCap(-3, for: 1) }
        #expect(pacer.view(1)?.frameRateCap == nil, "a refused cap leaves the view unchanged")
        #expect(throws: RenderError.self) { try pacer.resizeView(1, width: 64, height: -1) }
        #expect(pacer.submit(stream: 77, frame: PacerHarness.solid(.white)) == 0)
    }

    @Test func viewsCanBeRemovedRebooundAndShareAStream() throws {
        let pacer = try FramePacer()
        for i in 0..<3 { try pacer.add(RenderView(id: ViewID(i), stream: 5, width: 32, height: 18)) }
        #expect(pacer.submit(stream: 5, frame: PacerHarness.solid(.white)) == 3)
        try pacer.removeView(1)
        #expect(pacer.viewIDs == [0, 2])
        #expect(pacer.refresh(at: .zero).drawn == [0, 2])
        try pacer.bindView(2, to: 6)
        #expect(pacer.submit(stream: 5, frame: PacerHarness.solid(.white)) == 1)
        #expect(pacer.submit(stream: 6, frame: PacerHarness.solid(.white)) == 1)
        #expect(pacer.refresh(at: .milliseconds(17)).drawn.sorted() == [0, 2])
        try pacer.resizeView(0, width: 64, height: 64)
        #expect(pacer.view(0)?.contentRect == nil && pacer.view(0)?.pixels.count == 64 * 64 * 4)
    }
}
