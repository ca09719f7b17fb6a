import ArgumentParser
import Confer
import ConferMedia
import ConferCodecs
import ConferJobs

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "PSNR and SSIM of a video against its reference (per frame with --json).")

    @Argument(help: "The reference video (.y4m, or a compressed file, which is decoded).")
    var reference: String
    @Argument(help: "The video to judge.")
    var test: String
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let progress = outputOptions.progress("compare")
        let report = try Comparison.run(reference: reference, test: test, perFrame: outputOptions.json) {
            progress.update($0, of: $1)
        }
        progress.finish()
        try outputOptions.emit(report)
    }
}
