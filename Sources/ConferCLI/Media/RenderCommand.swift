import Foundation
import ArgumentParser
import Confer
import ConferRender
import ConferJobs

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Show what the frame pacer would draw and drop: one view per input, in virtual time.",
        discussion: """
        Every input plays into a view of its own; frames arrive at their timestamps and the pacer refreshes at
        the display rate, sharing a budget of draws per second among the views (views are drawn to RGBA for
        real; no waiting: a 10 s run takes a fraction of that). The first input is the active speaker (high
        priority) unless --speaker says otherwise.
        Example: confer render in0.y4m in1.y4m in2.y4m in3.y4m in4.y4m in5.y4m in6.y4m in7.y4m --budget 120
        """)

    @Argument(help: "The video inputs (.y4m, .ivf, .h264), one view each.")
    var inputs: [String] = []
    @Option(help: "Draws per second the display affords, shared by every view.")
    var budget = 120
    @Option(help: "Display refreshes per second.")
    var refresh = 60
    @Option(help: "Seconds to simulate (default: until the longest input ends).")
    var duration: Double?
    @Option(help: "Size of every view. (default: 320x180)", transform: VideoSize.parse)
    var viewSize = VideoSize(width: 320, height: 180)
    @Option(help: "The input (from 0) whose view has high priority, the active speaker.")
    var speaker = 0
    @Flag(help: "Give every view the same priority.")
    var noSpeaker = false
    @Option(help: "Write the pacer's statistics here as JSON.")
    var report: String?
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one video input") }
        if !(1...100_000).contains(budget) { throw ValidationError("--budget must be 1…100000 draws per second") }
        if !(1...1000).contains(refresh) { throw ValidationError("--refresh must be 1…1000 Hz") }
        if let duration, !(duration > 0 && duration <= 86_400) { throw ValidationError("--duration must be within (0, 86400] seconds") }
        if !noSpeaker && !inputs.indices.contains(speaker) {
            throw ValidationError("--speaker must be an input index, 0…\(inputs.count - 1)")
        }
    }

    func run() throws {
        let progress = outputOptions.progress("render")
        let options = RenderOptions(budget: budget, refreshRate: refresh, duration: duration, viewWidth: viewSize.width,
                                    viewHeight: viewSize.height, speaker: noSpeaker ? nil : speaker)
        let result = try RenderJob.run(inputs: inputs, options: options) { progress.update($0, of: $1, unit: "refreshes") }
        progress.finish()
        if let report {
            do {
                try reportJSON(result.statistics).write(to: URL(fileURLWithPath: report))
            } catch {
                throw ValidationError("cannot write --report \(report): \(error.localizedDescription)")
            }
        }
        try outputOptions.emit(result)
    }
}

extension RenderReport: CommandReport {
    var humanSummary: [String] {
        var rows = [["view", "input", "priority", "received", "drawn", "drawn fps", "superseded", "budget drops", "share"]]
        for v in views {
            rows.append([String(v.view.rawValue), v.input, v.priority.description, String(v.framesReceived),
                         String(v.framesDrawn), fixed(v.drawnFPS, 1), String(v.droppedSuperseded), String(v.droppedBudget),
                         fixed(v.budgetShare * 100, 1) + "%"])
        }
        return ["\(views.count) views, budget \(budget) draws/s at \(refreshRate) Hz, \(fixed(seconds, 2)) s "
                + "(\(refreshes) refreshes, simulated in \(fixed(wallSeconds, 2)) s)", ""]
            + table(rows)
            + ["", (isOverloaded ? "overloaded: " : "fits: ") + overloadSummary + "; fair rate \(fixed(fairRate, 1)) fps"]
    }
}
