import ArgumentParser
import ConferClient

/// What `confer host` and `confer join` share: where to connect, as whom, how long, and
/// what to print and write.
struct MemberOptions: ParsableArguments {
    @Option(help: "The signaling server's URL.")
    var server: String
    @Option(help: "A token from `confer token` (`confer host` needs one with --role host).")
    var token: String
    @Option(help: "Seconds to stay once admitted (default: until Ctrl-C).")
    var duration: Double?
    @Option(help: "Send this chat message once admitted.")
    var say: String?
    @Option(help: "Write a JSON report here at the end.")
    var report: String?
    @Option(help: "PEM certificates to trust for an https:// server (a self-signed one).")
    var trust: String?
    @Flag(help: "Print one JSON object per line on stdout for every event and connection change.")
    var events = false
    @Flag(name: .shortAndLong, help: "Print nothing on stderr but errors.")
    var quiet = false
    @Flag(help: "Take commands typed on standard input once admitted, one a line: say TEXT, mic off, kick ID, mute ID mic, … (type help).")
    var commands = false

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
    }

    /// The meeting client these options describe.
    func client() throws -> MeetingClient {
        var configuration = MeetingClientConfiguration(server: server, token: token)
        configuration.trustedCertificates = trust
        do { return try MeetingClient(configuration: configuration) } catch { throw ValidationError("\(error)") }
    }

    /// The run of one member's session with these options.
    func session(client: MeetingClient, approval: ApprovalPolicy?, cutSignalingAfter: Double?) -> MemberSession {
        MemberSession(client: client, printer: EventPrinter(json: events, quiet: quiet), approval: approval, duration: duration,
                      say: say, cutSignalingAfter: cutSignalingAfter, reportPath: report, commands: commands)
    }
}
