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

    /// ArgumentParser's own `main`, but with one exit status for every refused option: a job
    /// that refuses its options (``JobError`` of kind `invalidOptions`, say `meeting
    /// --participants 0`) ends with the usage status 64, as the options ArgumentParser checks
    /// do, rather than 1, which stays for work that failed.
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

    /// What to print for `error` thrown by `command` if it is the user's option mistake
    /// found only once the work was set up (the options ArgumentParser checks never get
    /// here), or nil for any other error.
    static func usageError(_ error: any Error, in command: any ParsableCommand.Type) -> String? {
        guard let job = error as? JobError, job.kind == .invalidOptions else { return nil }
        let name = command.configuration.commandName.map { "confer \($0)" } ?? "confer"
        return "Error: \(job.detail)\n  See '\(name) --help' for the options."
    }
}
