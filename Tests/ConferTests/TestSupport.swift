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
/// waited for within a bound; killed by its pid if it is still running when the value goes away.
///
/// Spawned with posix_spawn and a cleared signal mask and default SIGINT action: the test
/// runner's threads may block or ignore SIGINT, and a child inherits both, which would
/// leave `gst-launch -e` deaf to the interrupt that makes it finish its file. Waits poll
/// every 20 ms with `Task.sleep` rather than block, so a test's own receiver keeps the
/// cooperative threads it needs meanwhile.
final class BackgroundProcess {
    let pid: pid_t
    private var status: Int32?
    /// Where the tool's stderr goes, for failure messages.
    let errorLog: String

    /// Starts `arguments[0]` (found on the PATH) with the rest as arguments; stdout is
    /// discarded, stderr kept in `errorLog`.
    init(_ arguments: [String], errorLog: String) throws {
        self.errorLog = errorLog
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorLog, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &interrupt)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard result == 0 else { throw TestFailure("cannot start \(arguments[0]): error \(result)") }
        pid = child
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }

    /// Waits up to `timeout` seconds for the process to exit by itself; its exit status, or nil if it is still running.
    func exitStatus(within timeout: Double) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while status == nil {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                // Exit code when it exited, 128 + signal when a signal ended it.
                status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
                break
            }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return status
    }

    /// Sends SIGINT (gst-launch -e turns it into EOS, ffmpeg finishes its file) and waits up
    /// to `timeout` seconds for the exit; the exit status, or nil when it did not exit in time.
    func interrupt(within timeout: Double) async -> Int32? {
        if status == nil { kill(pid, SIGINT) }
        return await exitStatus(within: timeout)
    }

    /// What the tool wrote to stderr.
    var errors: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }
}

/// The rx_queue (bytes waiting) of every socket bound to local UDP `port`, from
/// /proc/net/udp and /proc/net/udp6.
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
/// `port`: a peer we started is ready to receive. Throws when none appears in time.
func waitForUDPPort(_ port: Int, timeout: Double = 10) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while udpSockets(port: port).isEmpty {
        guard ContinuousClock.now < deadline else { throw TestFailure("nothing bound UDP port \(port) within \(timeout) s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Waits (polling every 10 ms, at most `timeout` seconds) until the sockets on UDP `port`
/// have read every datagram queued to them: the peer has taken in all we sent.
func waitForUDPQueueDrained(_ port: Int, timeout: Double = 10) async {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while udpSockets(port: port).contains(where: { $0 > 0 }) && ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(10))
    }
}
/// A free UDP port on 127.0.0.1 for a peer process (FFmpeg, GStreamer) to listen on;
/// `evenPair` asks for an even port whose next port is free too (RTP and RTCP, as FFmpeg's
/// SDP input wants).
///
/// Taken from below the kernel's ephemeral range, where a socket bound to port 0 is never
/// put: a peer may stop listening while our sender still sends (FFmpeg stops after the
/// frames it wants), and those datagrams must not reach a receiver another test bound to
/// port 0 meanwhile, whose exact counts they would spoil.
func freeUDPPort(evenPair: Bool = false) throws -> Int {
    let below = ephemeralPortRangeStart()
    var generator = SystemRandomNumberGenerator()
    for _ in 0 ..< 200 {
        let port = Int.random(in: 10_000 ..< below - 1, using: &generator) & ~1
        guard (try? bindAndRelease(port)) != nil else { continue }
        if !evenPair || (try? bindAndRelease(port + 1)) != nil { return port }
    }
    throw TestFailure("no free UDP port \(evenPair ? "pair " : "")found below \(below)")
}

/// The first port of the kernel's ephemeral range (net.ipv4.ip_local_port_range), or
/// 32768 where it cannot be read.
private func ephemeralPortRangeStart() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
          let first = text.split(whereSeparator: \.isWhitespace).first, let port = Int(first), port > 10_002 else { return 32_768 }
    return port
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
