import ArgumentParser
import ConferClient
import ConferSession

struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Ask to join a room, and once the host approves, send a camera and voice and receive the composite.",
        discussion: """
        Waits for the host's answer; a declined or refused join exits with status 3 and the reason on stderr, a \
        kick or a closed room with status 4.
          confer join --server http://127.0.0.1:7880 --token "$TOKEN" --duration 10 --say "hello" --events
        """)

    @Option(help: "The signaling server's URL.")
    var server: String
    @Option(help: "A participant (or observer) token from `confer token`.")
    var token: String
    @Option(help: "A recorded camera to send (.y4m, .ivf, .h264), looped; a test pattern in the member's colour otherwise.")
    var input: String?
    @Option(help: "The synthetic camera's size, WIDTHxHEIGHT.")
    var cameraSize = VideoSize(width: 320, height: 180)
    @Option(help: "A recorded voice to send (.wav, .opus); a tone in turns otherwise.")
    var audio: String?
    @Option(name: .shortAndLong, help: "Write the composite received: .ivf/.h264 as it arrived, .y4m as rendered.")
    var output: String?
    @Option(help: "Write the mix played: .wav or .opus.")
    var audioOut: String?
    @Flag(help: "Signaling only: no camera, microphone or composite.")
    var noMedia = false
    @Option(help: "Seconds to stay once admitted (default: until Ctrl-C).")
    var duration: Double?
    @Option(help: "Send this chat message once admitted.")
    var say: String?
    @Option(help: "Write a JSON report here at the end.")
    var report: String?
    @Option(help: "PEM certificates to trust for an https:// server (a self-signed one).")
    var trust: String?
    @Option(help: "Drop the signaling connection this many seconds after joining, to show reconnection.")
    var cutSignalingAfter: Double?
    @Flag(help: "Print one JSON object per line on stdout for every event and connection change.")
    var events = false
    @Flag(name: .shortAndLong, help: "Print nothing on stderr but errors.")
    var quiet = false

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if let cutSignalingAfter, !(cutSignalingAfter >= 0) { throw ValidationError("--cut-signaling-after must be 0 or more") }
    }

    var mediaOptions: MeetingMediaOptions {
        var options = MeetingMediaOptions()
        options.cameraFile = input
        options.cameraWidth = cameraSize.width
        options.cameraHeight = cameraSize.height
        options.microphoneFile = audio
        options.videoOutput = output
        options.audioOutput = audioOut
        return options
    }

    func run() async throws {
        var configuration = MeetingClientConfiguration(server: server, token: token)
        configuration.trustedCertificates = trust
        let client: MeetingClient
        do { client = try MeetingClient(configuration: configuration) } catch { throw ValidationError("\(error)") }
        try await MemberSession(client: client, printer: EventPrinter(json: events, quiet: quiet), approval: nil, duration: duration,
                                say: say, cutSignalingAfter: cutSignalingAfter, reportPath: report).run(media: noMedia ? nil : mediaOptions)
    }
}
