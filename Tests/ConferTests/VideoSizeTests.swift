import Testing
import ArgumentParser
@testable import ConferCLI
import ConferMedia

/// `--size`, `--camera-size` and `--view-size`: WIDTHxHEIGHT, and a refusal that says why.
@Suite struct VideoSizeTests {
    @Test func sizesAreRead() throws {
        #expect(try VideoSize.parse("640x360") == VideoSize(width: 640, height: 360))
        #expect(try VideoSize.parse("1280X720") == VideoSize(width: 1280, height: 720))
        #expect(try VideoSize.parse("2x16384") == VideoSize(width: 2, height: 16384))
    }

    @Test(arguments: [("100x3", "both sides must be even: 4:2:0 pictures halve them for colour (got 100x3; 100x4 would do)"),
                      ("641x361", "both sides must be even: 4:2:0 pictures halve them for colour (got 641x361; 642x362 would do)"),
                      ("640x", "a size is WIDTHxHEIGHT, for example 640x360 (got 640x)"),
                      ("640", "a size is WIDTHxHEIGHT, for example 640x360 (got 640)"),
                      ("axb", "a size is WIDTHxHEIGHT, for example 640x360 (got axb)"),
                      ("0x360", "each side of a size is from 2 to 16384 pixels (got 0x360)"),
                      ("640x32768", "each side of a size is from 2 to 16384 pixels (got 640x32768)")])
    func aSizeRefusedSaysWhy(text: String, message: String) {
        let error = #expect(throws: ValidationError.self) { try VideoSize.parse(text) }
        #expect(error?.message == message)
    }

    @Test func theCommandLineShowsTheReason() {
        let error = #expect(throws: (any Error).self) { try TranscodeCommand.parse(["in.y4m", "-o", "out.ivf", "--size", "100x3"]) }
        #expect(error.map { TranscodeCommand.message(for: $0) }?.contains("100x4 would do") == true)
        #expect((try? GenerateCommand.parse(["-o", "x.y4m"]))?.size == VideoSize(width: 640, height: 360), "the default the help gives")
        #expect(GenerateCommand.helpMessage(columns: 1000).contains("Picture size. (default: 640x360)"))
    }
}

/// `--codec` where only video makes sense lists exactly the video codecs, in its help and its refusal.
@Suite struct VideoCodecOptionTests {
    @Test func opusIsRefusedWithTheChoices() {
        let member = ["--server", "http://127.0.0.1:7880", "--token", "t"]
        let refusals: [(String, String)] = [
            (message { try HostCommand.parse(member + ["--codec", "opus"]) }, "host"),
            (message { try CallCommand.parse(member + ["--codec", "opus"]) }, "call"),
            (message { try MeetingCommand.parse(["--codec", "opus"]) }, "meeting"),
            (message { try SimulateCommand.parse(["in.y4m", "-o", "out.y4m", "--codec", "opus"]) }, "simulate"),
            (message { try LiveCommand.parse(["--codec", "opus"]) }, "live"),
        ]
        for (text, command) in refusals {
            #expect(text.contains("Please provide one of 'vp8', 'vp9' or 'h264'"), "\(command): \(text)")
        }
        #expect(HostCommand.helpMessage(columns: 1000).contains("(values: vp8, vp9, h264; default: vp8)"))
        #expect(CallCommand.helpMessage(columns: 1000).contains("(values: vp8, vp9, h264; default: vp8)"))
    }

    @Test func eachNamesTheEngineCodec() {
        #expect(VideoCodec.allCases.map(\.mediaCodec) == [.vp8, .vp9, .h264])
        #expect(VideoCodec.allCases.map(\.rawValue) == [Codec.vp8, .vp9, .h264].map(\.rawValue))
    }

    private func message(_ parse: () throws -> Any) -> String {
        do {
            _ = try parse()
            return "parsed"
        } catch {
            return HostCommand.message(for: error)
        }
    }
}
