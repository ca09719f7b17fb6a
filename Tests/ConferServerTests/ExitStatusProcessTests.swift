import ConferTestSupport
import Foundation
import Testing

/// `confer`'s exit status, from the process a user runs: a wrong option is 64 whether
/// ArgumentParser, the command's `run()` or the job refuses it, and work that fails is 1.
@Suite(.serialized, .timeLimit(.minutes(1)), .wallClockExclusive)
struct ExitStatusProcessTests {
    /// The exit status and stderr of `arguments`.
    func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let process = try ConferProcess(arguments)
        let status = await process.exitStatus(timeout: 20)
        return (status, process.stderr)
    }

    @Test func anOptionTheJobRefusesIsAUsageError() async throws {
        let (status, stderr) = try await run(["meeting", "--participants", "0", "-q"])
        #expect(status == 64, "\(stderr)")
        #expect(stderr.contains("Error: a meeting has 1…64 participants, not 0"), "\(stderr)")
        #expect(stderr.contains("See 'confer meeting --help'"), "\(stderr)")
    }

    @Test func anOptionTheParserRefusesIsTheSameStatus() async throws {
        let (status, stderr) = try await run(["meeting", "--participants", "many", "-q"])
        #expect(status == 64, "\(stderr)")
        #expect(stderr.contains("--participants"), "\(stderr)")
    }

    @Test func anOptionRunRefusesPointsToItsCommand() async throws {
        let (status, stderr) = try await run(["join", "--server", "http://127.0.0.1:9", "--token", "not-a-token", "-q"])
        #expect(status == 64, "\(stderr)")
        #expect(stderr.contains("Error: the token is not a JWT"), "\(stderr)")
        #expect(stderr.contains("See 'confer join --help'") && !stderr.contains("confer <subcommand>"), "\(stderr)")
    }

    @Test func failedWorkIsStatusOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("confer-exit-\(UUID().uuidString.prefix(8))")
        let (status, stderr) = try await run(["transcode", directory.appendingPathComponent("absent.y4m").path, "-o",
                                              directory.appendingPathComponent("out.ivf").path, "-q"])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.contains("cannot open"), "\(stderr)")
    }
}
