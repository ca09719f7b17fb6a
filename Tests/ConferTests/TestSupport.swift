import Foundation
import Testing

/// A fresh temporary directory for one test.
func makeTemporaryDirectory(_ name: String = #function) throws -> String {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let path = NSTemporaryDirectory() + "confer-tests-\(safe)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Whether an executable is on the PATH.
func toolExists(_ name: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
    }
}

/// The result of running a tool.
struct ToolResult {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs `arguments[0]` with the rest as arguments and waits for it (bounded by `timeout` seconds).
@discardableResult
func runTool(_ arguments: [String], timeout: Double = 120) throws -> ToolResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes to the end before waiting, so a chatty tool cannot fill a pipe and stall.
    nonisolated(unsafe) var errData = Data()
    let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    errReader.start()
    let deadline = DispatchTime.now() + timeout
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: deadline, execute: killer)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    killer.cancel()
    while errReader.isExecuting { usleep(1000) }
    return ToolResult(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
                      errors: String(decoding: errData, as: UTF8.self))
}

/// Frames (video) or packets/samples counted by ffprobe for the first stream.
func ffprobeCount(_ path: String, entry: String = "nb_read_frames") throws -> Int {
    let result = try runTool(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "0",
                              "-show_entries", "stream=\(entry)", "-of", "default=nokey=1:noprint_wrappers=1", path])
    guard result.status == 0, let n = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw TestFailure("ffprobe failed on \(path): \(result.errors)")
    }
    return n
}

/// An error a test helper throws to fail the test with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether FFmpeg's tools are installed (Scripts/install-deps installs them).
let hasFFmpeg = toolExists("ffmpeg") && toolExists("ffprobe")

/// A tool running in the background (a GStreamer or FFmpeg peer), stopped with SIGINT and
/// waited for within a bound; killed if it is still running when the value goes away.
final class BackgroundProcess {
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)
    /// Where the tool's stderr goes, for failure messages.
    let errorLog: String

    /// Starts `arguments[0]` with the rest as arguments; stdout is discarded, stderr kept in `errorLog`.
    init(_ arguments: [String], errorLog: String) throws {
        self.errorLog = errorLog
        _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorLog))
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 5)
        }
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Waits up to `timeout` seconds for the process to exit by itself; its exit status, or nil if it is still running.
    func waitForExit(timeout: Double) -> Int32? {
        guard exited.wait(timeout: .now() + timeout) == .success else { return nil }
        exited.signal()   // later waits see it too
        return process.terminationStatus
    }

    /// Sends SIGINT (gst-launch -e turns it into EOS, ffmpeg finishes its file) and waits up
    /// to `timeout` seconds for the exit; the exit status, or nil when it did not exit in time.
    func interrupt(timeout: Double) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        return waitForExit(timeout: timeout)
    }

    /// What the tool wrote to stderr.
    var errors: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }
}

/// The lines of /proc/net/udp and /proc/net/udp6 for local `port`: (rx_queue bytes) per socket.
private func udpSockets(port: Int) -> [Int] {
    let hexPort = ":" + String(format: "%04X", port)
    var queues: [Int] = []
    for table in ["/proc/net/udp", "/proc/net/udp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue ...
            guard fields.count > 4, fields[1].hasSuffix(hexPort) else { continue }
            let queue = fields[4].split(separator: ":")
            queues.append(queue.count == 2 ? Int(queue[1], radix: 16) ?? 0 : 0)
        }
    }
    return queues
}

/// Waits (polling every 10 ms, at most `timeout` seconds) until a socket is bound to UDP
/// `port` — a peer we started is ready to receive. Throws when none appears in time.
func waitForUDPPort(_ port: Int, timeout: Double = 10) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while udpSockets(port: port).isEmpty {
        guard Date() < deadline else { throw TestFailure("nothing bound UDP port \(port) within \(timeout) s") }
        usleep(10_000)
    }
}

/// Waits (polling every 10 ms, at most `timeout` seconds) until the sockets on UDP `port`
/// have read every datagram queued to them, so a peer has taken in all we sent.
func waitForUDPQueueDrained(_ port: Int, timeout: Double = 10) {
    let deadline = Date().addingTimeInterval(timeout)
    while udpSockets(port: port).contains(where: { $0 > 0 }) && Date() < deadline { usleep(10_000) }
}

/// A free UDP port on 127.0.0.1, found by binding port 0 and releasing it; `evenPair` asks
/// for an even port whose next port is free too (RTP and RTCP, as FFmpeg's SDP input wants).
func freeUDPPort(evenPair: Bool = false) throws -> Int {
    for _ in 0 ..< 50 {
        let port = try bindAndRelease(0)
        if !evenPair { return port }
        if port % 2 == 0, port < 65_535, (try? bindAndRelease(port + 1)) != nil { return port }
    }
    throw TestFailure("no free UDP port pair found")
}

/// Binds a UDP socket on 127.0.0.1:`port`, reads the port bound and closes it.
private func bindAndRelease(_ port: Int) throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    address.sin_port = UInt16(port).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw TestFailure("bind to UDP port \(port) failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Wraps raw I420 frames (as GStreamer's filesink writes them) in a Y4M file, so Confer's
/// comparison can read them; returns the number of whole frames.
@discardableResult
func wrapI420(_ raw: String, width: Int, height: Int, into y4m: String) throws -> Int {
    let data = try Data(contentsOf: URL(fileURLWithPath: raw))
    let frameSize = width * height * 3 / 2
    let frames = data.count / frameSize
    var out = Data("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg\n".utf8)
    for index in 0 ..< frames {
        out.append(Data("FRAME\n".utf8))
        out.append(data[index * frameSize ..< (index + 1) * frameSize])
    }
    try out.write(to: URL(fileURLWithPath: y4m))
    return frames
}
