import ArgumentParser
import ConferClient
import ConferJobs
import ConferSession

struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Ask to join a room, and once the host approves, send a camera and voice and receive the composite.",
        discussion: """
        Waits for the host's answer; a declined or refused join exits with status 3 and the reason on stderr, a \
        kick or a closed room with status 4, media that cannot run (a file it cannot read or write) with status 1. \
        With --commands, type once admitted: say TEXT, tell ID TEXT, mic on|off, camera on|off, accept or \
        refuse (the host's request to turn a device on), apply (an observer), members, leave (help lists them).
          confer join --server http://127.0.0.1:7880 --token "$TOKEN" --duration 10 --say "hello" --events
          confer join --server http://127.0.0.1:7880 --token "$TOKEN" --commands
        """)

    @OptionGroup var member: MemberOptions
    @Option(help: "A recorded camera to send (.y4m, .ivf, .h264), looped; a test pattern in the member's colour otherwise.")
    var input: String?
    @Option(help: "The synthetic camera's size, WIDTHxHEIGHT. (default: 320x180)", transform: VideoSize.parse)
    var cameraSize = VideoSize(width: 320, height: 180)
    @Option(help: "A recorded voice to send (.wav, .opus); a tone in turns otherwise.")
    var audio: String?
    @Option(name: .shortAndLong, help: "Write the composite received: .ivf/.h264 as it arrived, .y4m as rendered.")
    var output: String?
    @Option(help: "Write the mix played: .wav or .opus.")
    var audioOut: String?
    @Flag(help: "Signaling only: no camera, microphone or composite.")
    var noMedia = false
    @Option(help: "Drop the signaling connection this many seconds after joining, to show reconnection.")
    var cutSignalingAfter: Double?

    func validate() throws {
        if let cutSignalingAfter, !(cutSignalingAfter >= 0) { throw ValidationError("--cut-signaling-after must be 0 or more") }
        // What can be known before asking the host: the files' kinds by their names. (Whether
        // .ivf or .h264 fits depends on the room's codec, known once admitted.)
        let kinds: [(String, String?, [String])] = [("-o", output, ["ivf", "h264", "264", "y4m"]), ("--audio-out", audioOut, ["wav", "opus"]),
                                                    ("--input", input, ["y4m", "ivf", "h264", "264"]), ("--audio", audio, ["wav", "opus"])]
        for (option, path, extensions) in kinds {
            guard let path else { continue }
            guard extensions.contains(fileExtension(path)) else {
                throw ValidationError("\(option) takes a .\(extensions.filter { $0 != "264" }.joined(separator: ", .")) file, not \(path)")
            }
        }
    }

    var mediaOptions: MeetingMediaOptions {
        var options = MeetingMediaOptions()
        options.setFiles(camera: input, cameraSize: cameraSize, microphone: audio, videoOutput: output, audioOutput: audioOut)
        return options
    }

    func run() async throws {
        let client = try member.client()
        try await member.session(client: client, approval: nil, cutSignalingAfter: cutSignalingAfter).run(media: noMedia ? nil : mediaOptions)
    }
}
