import ArgumentParser
import Confer
import ConferMedia
import ConferCodecs
import ConferJobs

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write synthetic media: a test pattern (.y4m) or a tone with talk spurts (.wav, .opus).")

    @Option(name: .shortAndLong, help: "The file to write (.y4m, .wav or .opus).")
    var output: String
    @Option(help: "Video pattern: testcard (colour, moving box, frame counter) or noise (hard to encode).")
    var pattern: VideoPattern = .testcard
    @Option(help: "Picture size. (default: 640x360)", transform: VideoSize.parse)
    var size = VideoSize(width: 640, height: 360)
    @Option(help: "Frames per second.")
    var fps: Double = 30
    @Option(help: "Seconds to generate.")
    var duration: Double = 5
    @Option(help: "Source index: picks the test card's colour or the tone's pitch, so sources can be told apart.")
    var index = 0
    @Option(help: "Audio channels (1 or 2).")
    var channels = 1
    @Option(help: "Random seed (the same seed writes the same file).")
    var seed: UInt64 = 1
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if !(duration > 0 && duration <= 3600) { throw ValidationError("--duration must be between 0 and 3600 seconds") }
        try OptionCheck.frameRate(fps)
        if channels != 1 && channels != 2 { throw ValidationError("--channels must be 1 or 2") }
    }

    func run() throws {
        let progress = outputOptions.progress("generate")
        let report = try Generator.run(output: output, pattern: pattern, width: size.width, height: size.height,
                                       frameRate: fps, seconds: duration, index: index, channels: channels, seed: seed) {
            progress.update($0, of: $1)
        }
        progress.finish()
        try outputOptions.emit(report)
    }
}
