@testable import ConferCLI
import ConferNet
import ConferSession
import Testing

/// What `confer join`, `host` and `call` refuse before they connect: files whose names no reader or
/// writer takes, and an answer left to a keyboard that is not read; and the option groups they
/// share reaching what they configure.
@Suite struct JoinCommandTests {
    static let member = ["--server", "http://127.0.0.1:7880", "--token", "t"]

    @Test(arguments: [["-o", "a.ivf"], ["-o", "a.H264"], ["-o", "a.y4m", "--audio-out", "m.opus"], ["--input", "cam.ivf", "--audio", "v.wav"]])
    func takes(arguments: [String]) throws {
        let join = try JoinCommand.parse(Self.member + arguments)
        let call = try CallCommand.parse(Self.member + arguments)
        #expect(join.files.output == call.files.output && join.files.input == call.files.input)
        #expect(join.mediaOptions.videoOutput == join.files.output && call.mediaOptions.microphoneFile == call.files.audio)
    }

    @Test(arguments: [(["-o", "a.mp4"], "-o takes a .ivf, .h264, .y4m file, not a.mp4"),
                      (["--audio-out", "m.mp3"], "--audio-out takes a .wav, .opus file, not m.mp3"),
                      (["--input", "cam.wav"], "--input takes a .y4m, .ivf, .h264 file, not cam.wav"),
                      (["--audio", "dir.d/voice"], "--audio takes a .wav, .opus file, not dir.d/voice")])
    func refuses(arguments: [String], message: String) {
        let error = #expect(throws: (any Error).self) { try JoinCommand.parse(Self.member + arguments) }
        #expect(error.map { JoinCommand.message(for: $0) } == message)
        // A call takes the same files, and says so before it dials.
        let callError = #expect(throws: (any Error).self) { try CallCommand.parse(Self.member + arguments) }
        #expect(callError.map { CallCommand.message(for: $0) } == message)
    }

    /// `--json` prints one report on stdout and `--events` JSON lines there: not both.
    @Test func jsonAndEventsAreNotTakenTogether() throws {
        #expect(try JoinCommand.parse(Self.member + ["--json"]).member.json)
        #expect(try HostCommand.parse(Self.member + ["--json"]).member.json)
        let error = #expect(throws: (any Error).self) { try JoinCommand.parse(Self.member + ["--json", "--events"]) }
        #expect(error.map { JoinCommand.message(for: $0) }?.hasPrefix("--events prints JSON lines on stdout and --json one report") == true)
    }

    /// `confer rooms forward`: the addresses make the room's forward, `--stop` none, and what
    /// the server would refuse is refused here first, naming the option.
    @Test func theRoomsForwardIsCheckedBeforeItIsSent() throws {
        let admin = ["--server", "http://127.0.0.1:7880", "--admin-token", "a"]
        let set = try RoomsCommand.Forward.parse(["r", "--video", "10.0.0.5:5004", "--video-rtcp", "10.0.0.5:5005",
                                                  "--audio", "[::1]:5006"] + admin)
        #expect(set.forward == RoomForward(video: "10.0.0.5:5004", videoRTCP: "10.0.0.5:5005", audio: "[::1]:5006"))
        #expect(try RoomsCommand.Forward.parse(["r", "--stop"] + admin).forward == nil)
        for (arguments, message) in [(["--video", "janus:5004"], "--video must be an IP address and a port, A.B.C.D:PORT or [IPv6]:PORT (got janus:5004)"),
                                     (["--video", "10.0.0.5:5004", "--video-rtcp", "10.0.0.5"],
                                      "--video-rtcp must be an IP address and a port, A.B.C.D:PORT or [IPv6]:PORT (got 10.0.0.5)"),
                                     (["--video", "10.0.0.5:5004", "--audio-rtcp", "10.0.0.5:5007"], "--audio-rtcp goes with --audio"),
                                     (["--stop", "--video", "10.0.0.5:5004"], "--stop takes no addresses"),
                                     ([], "name the composite's address with --video IP:PORT (or --stop)")] {
            let error = #expect(throws: (any Error).self) { try RoomsCommand.Forward.parse(["r"] + arguments + admin) }
            #expect(error.map { RoomsCommand.Forward.message(for: $0) } == message)
        }
    }

    /// The host's forward: both addresses reach the media options, and what cannot work is
    /// refused before anything connects.
    @Test func theHostsForwardIsCheckedAndReachesItsMedia() throws {
        let host = try HostCommand.parse(Self.member + ["--forward-video", "127.0.0.1:10000", "--forward-audio", "127.0.0.1:10001"])
        let forward = try #require(try host.mediaOptions().forward)
        #expect(forward.video == UDPAddress(host: "127.0.0.1", port: 10000) && forward.audio == UDPAddress(host: "127.0.0.1", port: 10001))
        #expect(try HostCommand.parse(Self.member).mediaOptions().forward == nil)
        #expect(forward.videoRTCP == nil && forward.audioRTCP == nil)
        let withRTCP = try #require(try HostCommand.parse(Self.member + [
            "--forward-video", "127.0.0.1:10000", "--forward-video-rtcp", "127.0.0.1:10001",
            "--forward-audio", "127.0.0.1:10002", "--forward-audio-rtcp", "127.0.0.1:10003",
        ]).mediaOptions().forward)
        #expect(withRTCP.videoRTCP == UDPAddress(host: "127.0.0.1", port: 10001) && withRTCP.audioRTCP == UDPAddress(host: "127.0.0.1", port: 10003))
        for (arguments, message) in [(["--forward-audio", "127.0.0.1:10001"], "--forward-audio goes with --forward-video"),
                                     (["--forward-video-rtcp", "127.0.0.1:10001"], "--forward-video-rtcp goes with --forward-video"),
                                     (["--forward-video", "127.0.0.1:9", "--forward-audio-rtcp", "127.0.0.1:10003"],
                                      "--forward-audio-rtcp goes with --forward-audio"),
                                     (["--forward-video", "127.0.0.1:9", "--forward-video-rtcp", "127.0.0.1"],
                                      "--forward-video-rtcp must be HOST:PORT with a port from 1 to 65535 (got 127.0.0.1)"),
                                     (["--forward-video", "127.0.0.1"], "--forward-video must be HOST:PORT with a port from 1 to 65535 (got 127.0.0.1)"),
                                     (["--forward-video", "127.0.0.1:0"], "--forward-video must be HOST:PORT with a port from 1 to 65535 (got 127.0.0.1:0)"),
                                     (["--forward-video", "127.0.0.1:9", "--no-media"], "--no-media sends nothing to forward: leave out --forward-video")] {
            let error = #expect(throws: (any Error).self) { try HostCommand.parse(Self.member + arguments) }
            #expect(error.map { HostCommand.message(for: $0) } == message)
        }
    }

    /// Whether the caller's video, told with the ring, fits the callee's -o: as received,
    /// .ivf holds VP8 and VP9 and .h264 holds H.264; decoded, .y4m holds any.
    @Test func aCalleeKnowsWhetherItsOutputHoldsTheCallersVideo() {
        for (codec, output) in [("vp8", "a.ivf"), ("vp9", "a.IVF"), ("h264", "a.h264"), ("h264", "a.264"), ("h264", "a.y4m"), ("vp9", "a.y4m")] {
            #expect(CallCommand.outputProblem(offered: codec, output: output) == nil, "\(codec) into \(output)")
        }
        #expect(CallCommand.outputProblem(offered: "h264", output: "a.ivf")
            == "the caller sends h264, which -o a.ivf cannot hold: answer with -o FILE.y4m (decoded), or FILE.h264 (as received)")
        #expect(CallCommand.outputProblem(offered: "vp8", output: "a.h264")
            == "the caller sends vp8, which -o a.h264 cannot hold: answer with -o FILE.y4m (decoded), or FILE.ivf (as received)")
        // Nothing said, nothing written, or a codec this side does not know: nothing to decline for.
        #expect(CallCommand.outputProblem(offered: nil, output: "a.ivf") == nil)
        #expect(CallCommand.outputProblem(offered: "h264", output: nil) == nil)
        #expect(CallCommand.outputProblem(offered: "av1", output: "a.ivf") == nil)
    }

    @Test func theServerOptionsReachTheClients() throws {
        let join = try JoinCommand.parse(Self.member + ["--trust", "ca.pem", "--events", "-q"])
        #expect(join.member.connection.server == "http://127.0.0.1:7880" && join.member.connection.trust == "ca.pem")
        #expect(join.member.reporting.printer.json && join.member.reporting.printer.quiet)
        let calls = try CallsCommand.parse(Self.member + ["--trust", "ca.pem"])
        #expect(calls.connection.token == "t" && calls.connection.trust == "ca.pem")
        let call = try CallCommand.parse(Self.member)
        #expect(call.connection.trust == nil && !call.reporting.printer.json && !call.reporting.printer.quiet)
    }

    @Test func aHostThatAnswersByHandNeedsAKeyboard() throws {
        let error = #expect(throws: (any Error).self) { try HostCommand.parse(Self.member + ["--approve", "manual"]) }
        #expect(error.map { HostCommand.message(for: $0) } == "--approve manual leaves requests to you: add --commands to type approve ID or decline ID")
        let host = try HostCommand.parse(Self.member + ["--approve", "manual", "--commands"])
        #expect(host.approve == .manual && host.member.commands)
    }

    @Test func aCalleeThatAnswersByHandNeedsAKeyboard() throws {
        let error = #expect(throws: (any Error).self) { try CallCommand.parse(Self.member + ["--answer", "manual"]) }
        #expect(error.map { CallCommand.message(for: $0) } == "--answer manual leaves the answer to you: add --commands to type accept or decline")
        #expect(try CallCommand.parse(Self.member + ["--answer", "manual", "--commands"]).answer == .manual)
    }
}
