import Foundation
import Synchronization

/// A `confer` subcommand run as a child process by `confer live`: each stdout line goes to
/// `onLine` as it comes, stderr is kept for when something goes wrong.
final class ChildProcess: Sendable {
    private let process: Process
    private let errors = LockedBytes()
    private let pending = LockedBytes()
    let name: String

    /// This binary, as the child's executable.
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    init(name: String, arguments: [String], onLine: @escaping @Sendable (String) -> Void) throws {
        self.name = name
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [pending] handle in
            let data = handle.availableData
            let lines: [String] = pending.bytes.withLock { buffer in
                buffer.append(data)
                var lines: [String] = []
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    lines.append(String(decoding: buffer[buffer.startIndex ..< newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex ... newline)
                }
                return lines
            }
            for line in lines { onLine(line) }
        }
        err.fileHandleForReading.readabilityHandler = { [errors] handle in
            let data = handle.availableData
            errors.bytes.withLock { $0.append(data) }
        }
        try process.run()
    }

    var stderr: String { errors.bytes.withLock { String(decoding: $0, as: UTF8.self) } }
    var isRunning: Bool { process.isRunning }

    func signal(_ number: Int32) { if process.isRunning { kill(process.processIdentifier, number) } }

    /// Waits for the child to end, at most `timeout` seconds (then kills it); its status.
    func wait(timeout: Double) async -> Int32 {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }
}

/// Bytes a pipe's reader appends to from its own thread.
final class LockedBytes: Sendable {
    let bytes = Mutex(Data())
}
