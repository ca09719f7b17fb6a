@testable import ConferCLI
import Testing

/// What `confer join`, `host` and `call` refuse before they connect: files whose names no reader or
/// writer takes, and an answer left to a keyboard that is not read.
@Suite struct JoinCommandTests {
    static let member = ["--server", "http://127.0.0.1:7880", "--token", "t"]

    @Test(arguments: [["-o", "a.ivf"], ["-o", "a.H264"], ["-o", "a.y4m", "--audio-out", "m.opus"], ["--input", "cam.ivf", "--audio", "v.wav"]])
    func takes(arguments: [String]) throws {
        _ = try JoinCommand.parse(Self.member + arguments)
    }

    @Test(arguments: [(["-o", "a.mp4"], "-o takes a .ivf, .h264, .y4m file, not a.mp4"),
                      (["--audio-out", "m.mp3"], "--audio-out takes a .wav, .opus file, not m.mp3"),
                      (["--input", "cam.wav"], "--input takes a .y4m, .ivf, .h264 file, not cam.wav"),
                      (["--audio", "dir.d/voice"], "--audio takes a .wav, .opus file, not dir.d/voice")])
    func refuses(arguments: [String], message: String) {
        let error = #expect(throws: (any Error).self) { try JoinCommand.parse(Self.member + arguments) }
        #expect(error.map { JoinCommand.message(for: $0) } == message)
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
