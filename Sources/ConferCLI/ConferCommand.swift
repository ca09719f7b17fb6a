import ArgumentParser

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
}
