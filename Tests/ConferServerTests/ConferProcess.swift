import Foundation
import Synchronization
import Testing

/// A `confer` command run as its own process, as a user would run it: arguments in,
/// stdout and stderr collected, exit status out. Started and stopped by the test.
final class ConferProcess: Sendable {
    private let process: Process
    private let output = Buffer()
    private let errors = Buffer()
    /// Standard input, when the test types into it.
    private let input: FileHandle?
    let arguments: [String]

    /// The `confer` binary built beside this test bundle.
    static var binary: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // `swift test` runs the bundle from .build/<triple>/debug; the product sits there too.
        for _ in 0 ..< 3 {
            let candidate = directory.appendingPathComponent("confer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/confer")
    }

    /// Starts `confer arguments`; with `typing`, its standard input is a pipe ``type(_:)`` writes to.
    convenience init(_ arguments: [String], directory: String? = nil, typing: Bool = false) throws {
        try self.init(executable: Self.binary.path, arguments, directory: directory, typing: typing)
    }

    /// Another program than `confer` (a peer such as Janus, or curl), run the same way.
    init(executable: String, _ arguments: [String], directory: String? = nil, typing: Bool = false) throws {
        self.arguments = arguments
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if typing {
            let pipe = Pipe()
            process.standardInput = pipe
            input = pipe.fileHandleForWriting
        } else {
            input = nil
        }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        Self.drain(out.fileHandleForReading, into: output)
        Self.drain(err.fileHandleForReading, into: errors)
    }

    /// Reads `handle` into `buffer` on a thread of its own until the process closes its end,
    /// then closes it. Not `readabilityHandler`: a handler left set keeps its descriptor open
    /// for the rest of the run (the wall-clock suites went past 1,300, where Foundation's
    /// `Process.run()` once crashed), and clearing one at the end of the stream traps in
    /// libdispatch. Started after `run()`, so a launch that fails leaves no reader blocked.
    private static func drain(_ handle: FileHandle, into buffer: Buffer) {
        Thread {
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.data.withLock { $0.append(contentsOf: chunk[..<count]) }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            try? handle.close()
        }.start()
    }

    var stdout: String { output.data.withLock { String(decoding: $0, as: UTF8.self) } }
    var stderr: String { errors.data.withLock { String(decoding: $0, as: UTF8.self) } }
    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    /// stdout's JSON lines, decoded.
    var events: [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The `event` names seen on stdout.
    var eventNames: [String] { events.compactMap { $0["event"] as? String } }

    /// Waits until `condition` holds, at most `timeout` seconds; whether it did.
    @discardableResult
    func wait(upTo timeout: Double, until condition: (ConferProcess) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(self)
    }

    /// The first stdout line, once it has come (a server's URL).
    func firstLine(timeout: Double = 20) async -> String? {
        await wait(upTo: timeout) { $0.stdout.contains("\n") }
        return stdout.split(separator: "\n").first.map(String.init)
    }

    /// Waits for the process to end (at most `timeout` seconds, then kills it); its status.
    func exitStatus(timeout: Double = 30) async -> Int32 {
        if !(await wait(upTo: timeout) { !$0.isRunning }) {
            Issue.record("\(arguments.prefix(2)) did not end within \(timeout) s; killing it\n\(stderr)")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // Let the pipes drain what the process wrote last.
        try? await Task.sleep(for: .milliseconds(100))
        return process.terminationStatus
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Writes `line` to the process's standard input, as a person would type it.
    func type(_ line: String) {
        input?.write(Data((line + "\n").utf8))
    }

    /// Ends the process's standard input (Ctrl-D).
    func endInput() { try? input?.close() }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Bytes a pipe's reader appends to while the test reads them.
final class Buffer: Sendable {
    let data = Mutex(Data())
}

/// A `confer serve` on a free loopback port, with a fresh secret, stopped by `stop()`.
struct TestServer {
    let process: ConferProcess
    let url: String
    let secret: String
    let adminToken = "admin-\(UInt32.random(in: 0 ... .max))"

    /// A server with a fresh secret (or `secret`, to restart one); its call log in memory
    /// unless `arguments` name a `--db`.
    init(arguments: [String] = [], secret: String? = nil) async throws {
        var url = "http://127.0.0.1:0"
        let secret = secret ?? (0 ..< 32).map { _ in String(UInt8.random(in: 0 ... 15), radix: 16) }.joined()
        self.secret = secret
        let adminToken = adminToken
        let log = arguments.contains("--db") ? [] : ["--memory-db"]
        process = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", secret, "--admin-token", adminToken] + log + arguments)
        url = try #require(await process.firstLine(), "the server printed no URL: \(process.stderr)")
        self.url = url
    }

    /// A token minted by `confer token`, as an operator would.
    func token(_ identity: String, role: String = "participant", room: String = "room", ttl: Double = 600, secret: String? = nil) async throws -> String {
        let minting = try ConferProcess(["token", "--secret", secret ?? self.secret, "--room", room, "--identity", identity, "--role", role,
                                         "--ttl", "\(ttl)"])
        #expect(await minting.exitStatus() == 0)
        return minting.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A token for calls as `identity`, valid for `ttl` seconds (`confer token`'s default without).
    func callToken(_ identity: String, ttl: Double? = nil) async throws -> String {
        let minting = try ConferProcess(["token", "--secret", secret, "--calls", "--identity", identity] + (ttl.map { ["--ttl", "\($0)"] } ?? []))
        #expect(await minting.exitStatus() == 0)
        return minting.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func member(_ command: String, token: String, _ arguments: [String] = [], typing: Bool = false) throws -> ConferProcess {
        try ConferProcess([command, "--server", url, "--token", token] + arguments, typing: typing)
    }

    func rooms(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try ConferProcess(["rooms"] + arguments + ["--server", url, "--admin-token", adminToken])
        let status = await process.exitStatus()
        return (status, process.stdout + process.stderr)
    }

    func stop() async {
        process.signal(SIGTERM)
        _ = await process.exitStatus(timeout: 10)
    }
}
