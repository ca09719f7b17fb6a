#if canImport(Glibc)
import Glibc
import ConferSRTP

/// A `gst-launch-1.0` child process and the loopback UDP plumbing to talk SRTP with it.
///
/// Plain Glibc calls: every wait is a `poll` bounded by the test's deadline, and a child
/// still running at the end is killed by its own pid.
final class GStreamerPeer {
    static let launcher = "/usr/bin/gst-launch-1.0"

    /// True when gst-launch and the SRTP plugin (gst-plugins-bad) are installed.
    static var isAvailable: Bool {
        access(launcher, X_OK) == 0
            && access("/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstsrtp.so", R_OK) == 0
    }

    /// The srtpenc/srtpdec cipher and auth names for a profile (RTP, then RTCP).
    static func gstNames(_ profile: SRTPProfile) -> (cipher: String, auth: String, rtcpCipher: String, rtcpAuth: String) {
        switch profile {
        case .aes128CmHmacSha1_80: ("aes-128-icm", "hmac-sha1-80", "aes-128-icm", "hmac-sha1-80")
        case .aes128CmHmacSha1_32: ("aes-128-icm", "hmac-sha1-32", "aes-128-icm", "hmac-sha1-80")
        // GCM authenticates by itself; GStreamer wants the auth set to null.
        case .aeadAes128Gcm: ("aes-128-gcm", "null", "aes-128-gcm", "null")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    let pid: pid_t
    private let output: Int32
    private var outputText: [UInt8] = []

    /// Starts gst-launch with `pipeline` (one argument per token), its stdout on a pipe.
    init(pipeline: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PeerError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let arguments = [Self.launcher] + pipeline
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, Self.launcher, &actions, nil, &argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw PeerError("posix_spawn failed: \(status)")
        }
        pid = child
        output = fds[0]
    }

    deinit {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        close(output)
    }

    /// Waits for the child to close its stdout (it exits) and returns its exit status.
    func waitForExit(until deadline: ContinuousClock.Instant) throws -> Int32 {
        while try readOutput(until: deadline) {}
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8) & 0xFF
    }

    /// Reads stdout until it contains `text`.
    func waitForOutput(_ text: String, until deadline: ContinuousClock.Instant) throws {
        while !String(decoding: outputText, as: UTF8.self).contains(text) {
            guard try readOutput(until: deadline) else { throw PeerError("gst-launch exited before printing '\(text)'") }
        }
    }

    /// One read of stdout; false at end of file.
    private func readOutput(until deadline: ContinuousClock.Instant) throws -> Bool {
        try pollReadable(output, until: deadline, what: "gst-launch output")
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(output, &chunk, chunk.count)
        guard count > 0 else { return false }
        outputText += chunk[..<count]
        return true
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Waits until `fd` is readable, or throws at `deadline`.
func pollReadable(_ fd: Int32, until deadline: ContinuousClock.Instant, what: String) throws {
    let left = ContinuousClock.now.duration(to: deadline)
    let milliseconds = max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, Int32(milliseconds)) == 1 else { throw PeerError("timed out waiting for \(what)") }
}

/// A UDP socket on 127.0.0.1.
final class LoopbackSocket {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw PeerError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw PeerError("bind failed")
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }

    /// One datagram into `buffer`, returning its length.
    func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) throws -> Int {
        try pollReadable(fd, until: deadline, what: "a UDP packet")
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw PeerError("recv failed") }
        return count
    }

    func send(_ bytes: [UInt8], toPort port: UInt16) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard sent == bytes.count else { throw PeerError("sendto failed") }
    }
}

/// The whole content of the file at `path`.
func readWholeFile(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw PeerError("cannot open \(path)") }
    defer { fclose(file) }
    var content: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        content += chunk[..<count]
    }
    return content
}
#endif
