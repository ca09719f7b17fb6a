import ConferTestSupport
import Foundation
import Testing

/// `confer`'s exit status, from the process a user runs: a wrong option is 64 whether
/// ArgumentParser, the command's `run()` or the job refuses it, and work that fails is 1 (a
/// port in use among them, with what to do).
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

    /// An output name is an option: one no writer takes is 64 from the job as from the parser.
    @Test func anOutputNameNoWriterTakesIsAUsageError() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("confer-exit-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, stderr) = try await run(["generate", "-o", directory.appendingPathComponent("clip.mp4").path, "-q"])
        #expect(status == 64, "\(stderr)")
        #expect(stderr.contains("use .y4m for video") && stderr.contains("See 'confer generate --help'"), "\(stderr)")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        #expect(written.isEmpty, "nothing is written for a refused command: \(written)")
    }

    @Test func failedWorkIsStatusOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("confer-exit-\(UUID().uuidString.prefix(8))")
        let (status, stderr) = try await run(["transcode", directory.appendingPathComponent("absent.y4m").path, "-o",
                                              directory.appendingPathComponent("out.ivf").path, "-q"])
        #expect(status == 1, "\(stderr)")
        #expect(stderr.contains("cannot open"), "\(stderr)")
    }

    /// A server that is not there: the work fails (1), and the message names the address, the
    /// reason and what to check, in place of NIO's description at length.
    @Test func aServerThatIsNotThereSaysSo() async throws {
        let server = try await TestServer()
        let token = try await server.token("zed")
        let port = try #require(URL(string: server.url)?.port)
        await server.stop()
        let join = try server.member("join", token: token, ["--no-media"])
        #expect(await join.exitStatus(timeout: 20) == 1, "\(join.stderr)")
        // Never connected, the connection ends with no reason: not `timedOut`.
        #expect(join.stderr.contains("connection: disconnected\n") && !join.stderr.contains("timedOut"), "\(join.stderr)")
        #expect(join.stderr.contains("127.0.0.1:\(port): connection refused") && join.stderr.contains("is the server running there?")
                && !join.stderr.contains("SingleConnectionFailure"), "\(join.stderr)")
        #expect(join.stderr.contains("not admitted, ended: unreachable") && !join.stderr.contains("members at the end"), "\(join.stderr)")
    }

    /// An address not on this machine (192.0.2.1 is TEST-NET-1, never assigned) or no address
    /// at all: the server does not start, and says what to listen on instead.
    @Test func anAddressNotOnThisMachineSaysWhatToUse() async throws {
        for host in ["192.0.2.1", "999.1.1.1"] {
            let (status, stderr) = try await run(["serve", "--listen", "\(host):0", "--secret", String(repeating: "s", count: 32), "--memory-db"])
            #expect(status == 1, "\(stderr)")
            #expect(stderr.contains("cannot listen on \(host):0: no such address on this machine; use 127.0.0.1"), "\(stderr)")
        }
    }

    /// A port another process holds: the work fails (1) and the message says what to do.
    @Test func aPortInUseSaysWhatToDo() async throws {
        let server = try await TestServer()
        let port = try #require(URL(string: server.url)?.port)
        let second = try await run(["serve", "--listen", "127.0.0.1:\(port)", "--secret", server.secret, "--memory-db"])
        #expect(second.status == 1, "\(second.stderr)")
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)") && second.stderr.contains("port 0 for a free one"), "\(second.stderr)")
        await server.stop()

        let output = NSTemporaryDirectory() + "confer-port-in-use-\(UUID().uuidString.prefix(8)).y4m"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let receiver = try ConferProcess(["receive", "--listen", "127.0.0.1:0", "--codec", "vp8", "-o", output,
                                          "--duration", "20", "--events", "-q"])
        await receiver.wait(upTo: 20) { $0.eventNames.contains("listening") }
        let udpPort = try #require((receiver.events.first?["port"] as? NSNumber)?.intValue, "\(receiver.stderr)")
        let clash = try await run(["receive", "--listen", "127.0.0.1:\(udpPort)", "--codec", "vp8", "-o", output + ".second.y4m", "-q"])
        #expect(clash.status == 1, "\(clash.stderr)")
        #expect(clash.stderr.contains("the port is in use"), "\(clash.stderr)")
        receiver.signal(SIGINT)
        #expect(await receiver.exitStatus() == 0, "the first receiver still ends cleanly: \(receiver.stderr)")
    }
}
