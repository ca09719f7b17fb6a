import ArgumentParser
import Confer
import ConferJobs

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write one frame of a video as a PNG picture.",
        discussion: """
        Decodes the input (.y4m, .ivf or .h264) up to the frame on screen at --at seconds and writes it.
        A snapshot of a `confer mix` output shows a composite.
        Example: confer snapshot grid.ivf -o grid.png --at 2.5
        """)

    @Argument(help: "The video (.y4m, .ivf, .h264).")
    var input: String
    @Option(name: .shortAndLong, help: "The picture to write (.png).")
    var output: String
    @Option(help: "The time of the frame, in seconds from the start.")
    var at: Double = 0
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if !(at.isFinite && at >= 0) { throw ValidationError("--at must be 0 or more seconds") }
        if !output.lowercased().hasSuffix(".png") { throw ValidationError("-o must name a .png file") }
    }

    func run() throws {
        try outputOptions.emit(try SnapshotJob.run(input: input, output: output, at: at))
    }
}

extension SnapshotReport: CommandReport {
    var humanSummary: [String] {
        ["\(input) frame \(frameIndex) (\(fixed(seconds, 3)) s) → \(output): \(width)x\(height), \(formatBytes(bytes))"]
    }
}
