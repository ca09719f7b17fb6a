import ArgumentParser
import ConferClient
import ConferSession

/// What `confer host` and `confer join` share: where to connect, as whom, how long, and
/// what to print and write.
struct MemberOptions: ParsableArguments {
    @OptionGroup var connection: ServerOptions
    @OptionGroup var mediaAddress: MediaAddressOptions
    @Option(help: "Seconds to stay once admitted (default: until Ctrl-C).")
    var duration: Double?
    @Option(help: "Send this chat message once admitted.")
    var say: String?
    @Option(help: "Write a JSON report here at the end.")
    var report: String?
    @Flag(help: "Print the report as JSON on stdout at the end instead of the human summary on stderr.")
    var json = false
    @OptionGroup var reporting: EventOutputOptions
    @Flag(help: "Take commands typed on standard input once admitted, one a line: say TEXT, mic off, kick ID, mute ID mic, … (type help).")
    var commands = false

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if json && reporting.events {
            throw ValidationError("--events prints JSON lines on stdout and --json one report: pick one (--report FILE writes the report beside --events)")
        }
    }

    /// The meeting client these options describe.
    func client(devices: DeviceStates = DeviceStates()) throws -> MeetingClient { try connection.meetingClient(devices: devices) }

    /// The run of one member's session with these options.
    func session(client: MeetingClient, approval: ApprovalPolicy?, cutSignalingAfter: Double?) -> MemberSession {
        MemberSession(client: client, printer: reporting.printer, approval: approval, duration: duration,
                      say: say, cutSignalingAfter: cutSignalingAfter, reportPath: report, printsReport: json, commands: commands)
    }
}
