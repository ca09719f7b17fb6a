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
        refuse (the host's request to turn a device on), apply (an observer), members, leave (help lists them). \
        --camera-off and --mic-off join with that device off: the room shows it off from the start and \
        nothing of it is sent until it is turned on.
          confer join --server http://127.0.0.1:7880 --token "$TOKEN" --duration 10 --say "hello" --events
          confer join --server http://127.0.0.1:7880 --token "$TOKEN" --commands --camera-off
        """)

    @OptionGroup var member: MemberOptions
    @OptionGroup var files: MediaFileOptions
    @Flag(help: "Signaling only: no camera, microphone or composite.")
    var noMedia = false
    @Flag var enterWith: [DeviceOff] = []
    @Option(help: "Drop the signaling connection this many seconds after joining, to show reconnection.")
    var cutSignalingAfter: Double?

    func validate() throws {
        if let cutSignalingAfter, !(cutSignalingAfter >= 0) { throw ValidationError("--cut-signaling-after must be 0 or more") }
    }

    var mediaOptions: MeetingMediaOptions {
        var options = MeetingMediaOptions()
        options.setFiles(files)
        return options
    }

    func run() async throws {
        let client = try member.client(devices: DeviceStates(microphone: !enterWith.contains(.micOff), camera: !enterWith.contains(.cameraOff)))
        var media: MeetingMediaOptions?
        if !noMedia {
            var options = mediaOptions
            try await member.mediaAddress.apply(to: &options, server: member.connection.server)
            media = options
        }
        try await member.session(client: client, approval: nil, cutSignalingAfter: cutSignalingAfter).run(media: media)
    }
}

/// A device `confer join` enters the room with off: `--camera-off`, `--mic-off`.
enum DeviceOff: String, EnumerableFlag {
    case cameraOff, micOff

    static func help(for value: DeviceOff) -> ArgumentHelp? {
        switch value {
        case .cameraOff: "Join with the camera off (type `camera on` later, with --commands)."
        case .micOff: "Join with the microphone off (type `mic on` later, with --commands)."
        }
    }
}
