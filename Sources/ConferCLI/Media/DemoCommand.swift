import ArgumentParser
import Confer
import ConferMedia
import ConferCodecs
import ConferJobs

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The main job on built-in inputs: generate a clip and a tone, encode with every codec, decode, measure.")

    @Option(help: "Directory for the generated and encoded files.")
    var directory = "/tmp/confer-demo"
    @Option(help: "Seconds of media to generate.")
    var duration: Double = 5
    @Option(help: "Picture size. (default: 640x360)", transform: VideoSize.parse)
    var size = VideoSize(width: 640, height: 360)
    @Option(help: "Video bitrate in kbit/s.")
    var bitrate = 800
    @OptionGroup var output: OutputOptions

    func run() throws {
        let quiet = output.quiet
        let report = try Demo.run(directory: directory, seconds: duration, width: size.width, height: size.height,
                                  videoBitrateKbps: bitrate) { status in
            if !quiet { printError("demo: \(status)") }
        }
        try output.emit(report)
    }
}
