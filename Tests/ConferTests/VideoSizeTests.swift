import Testing
import ArgumentParser
@testable import ConferCLI

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
        #expect(GenerateCommand.helpMessage().contains("(default: 640x360)"))
    }
}
