import ArgumentParser
import ConferJobs

/// `confer`: Confer's command line. A file per command, in Media/ (files and RTP), Simulation/
/// (virtual-time runs and the network relay), Session/ (the server, meetings and calls); Support/
/// holds the option groups, checks and printers they share.
@main
struct ConferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confer",
        abstract: "A real-time media engine for video meetings: codecs, RTP/SRTP, mixing and pacing.",
        discussion: """
        Run `confer live` for a live meeting on loopback (a server, a host and participants, each its own process), \
        `confer meeting` for a whole meeting in virtual time on built-in inputs (participants, the compositing host, \
        a simulated network, a renderer), `confer demo` to see every codec at work, or `confer help SUBCOMMAND`.
        Every command prints a human summary; add --json for machine-readable output.
        """,
        subcommands: [LiveCommand.self, MeetingCommand.self, CallCommand.self, CallsCommand.self, DemoCommand.self, TranscodeCommand.self, GenerateCommand.self, CompareCommand.self, ProbeCommand.self,
                      SendCommand.self, ReceiveCommand.self, NetsimCommand.self, SimulateCommand.self,
                      MixCommand.self, RenderCommand.self, SnapshotCommand.self,
                      ServeCommand.self, TokenCommand.self, HostCommand.self, JoinCommand.self, RoomsCommand.self]
    )

    /// ArgumentParser's own `main`, with one exit status and one message for every refused
    /// option. ArgumentParser gives 64 and the command's usage for what `validate()` refuses,
    /// but for what `run()` refuses the root's usage ("confer <subcommand>"), and for a job that
    /// refuses its options (``JobError`` of kind `invalidOptions`, say `meeting
    /// --participants 0`) status 1. Here both end with 64 and point to the command's own help;
    /// 1 stays for work that failed.
    static func main() async {
        let command: any ParsableCommand
        do { command = try await asyncParseAsRoot() } catch { exit(withError: error) }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch {
            if let usage = usageError(error, in: type(of: command)) {
                printError(usage)
                exit(withError: ExitCode.validationFailure)
            }
            exit(withError: error)
        }
    }

    /// What to print for `error` thrown by `command`'s `run()` if it is an option the user
    /// got wrong, found only once the work was set up, or nil for any other error.
    static func usageError(_ error: any Error, in command: any ParsableCommand.Type) -> String? {
        let message: String
        switch error {
        case let job as JobError where job.kind == .invalidOptions: message = job.detail
        case let validation as ValidationError: message = validation.message
        default: return nil
        }
        return "Error: \(message)\n  See '\(path(of: command)) --help' for the options."
    }

    /// How a user names `command`: "confer rooms list" for `RoomsCommand.List`.
    static func path(of command: any ParsableCommand.Type) -> String {
        func search(_ node: any ParsableCommand.Type, _ names: [String]) -> [String]? {
            let names = names + [node._commandName]
            if node == command { return names }
            for child in node.configuration.subcommands {
                if let found = search(child, names) { return found }
            }
            return nil
        }
        return (search(Self.self, []) ?? ["confer"]).joined(separator: " ")
    }
}
