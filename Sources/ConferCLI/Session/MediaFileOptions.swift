import ArgumentParser
import ConferJobs

/// What `confer join` and `confer call` send and write: a recorded or synthetic camera, a
/// recorded voice or a tone, and the files for what comes back.
struct MediaFileOptions: ParsableArguments {
    @Option(help: "A recorded camera to send (.y4m, .ivf, .h264), looped; a test pattern otherwise (a member's in its slot's colour).")
    var input: String?
    @Option(help: "The synthetic camera's size, WIDTHxHEIGHT (at most 1280x720 in a call). (default: 320x180)", transform: VideoSize.parse)
    var cameraSize = VideoSize(width: 320, height: 180)
    @Option(help: "A recorded voice to send (.wav, .opus); a tone otherwise.")
    var audio: String?
    @Option(name: .shortAndLong, help: "Write the video received (a member's is the composite): .ivf/.h264 as it arrived, .y4m as rendered.")
    var output: String?
    @Option(help: "Write the voice played (a member's is the mix): .wav or .opus.")
    var audioOut: String?

    /// Checks what can be known before connecting: each file's kind by its name. Whether
    /// .ivf or .h264 fits depends on the codec the other side sends, known only later.
    func validate() throws {
        let kinds: [(String, String?, [String])] = [("-o", output, ["ivf", "h264", "264", "y4m"]), ("--audio-out", audioOut, ["wav", "opus"]),
                                                    ("--input", input, ["y4m", "ivf", "h264", "264"]), ("--audio", audio, ["wav", "opus"])]
        for (option, path, extensions) in kinds {
            guard let path else { continue }
            guard extensions.contains(fileExtension(path)) else {
                throw ValidationError("\(option) takes a .\(extensions.filter { $0 != "264" }.joined(separator: ", .")) file, not \(path)")
            }
        }
    }
}

/// How `confer join`, `confer host` and `confer call` report what happens: a line a change
/// on stderr for people, one JSON object a line on stdout with --events, or nothing but errors.
struct EventOutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON object per line on stdout for every event and connection change.")
    var events = false
    @Flag(name: .shortAndLong, help: "Print nothing on stderr but errors.")
    var quiet = false

    /// The printer these flags ask for.
    var printer: EventPrinter { EventPrinter(json: events, quiet: quiet) }
}
