import ConferNet
import Foundation
import Glibc
import Synchronization

/// A UDP socket and the one thread that answers STUN on it: blocked in `recvfrom`, it
/// answers each datagram with ``STUNResponder`` and `sendto`, counting the outcome, until
/// ``stop()``. The socket is closed by that thread as it ends, so no other thread ever
/// uses a closed (or reused) descriptor.
final class STUNSocketThread: Sendable {
    /// The bound port.
    let port: Int
    private let descriptor: Int32
    private let stopping = Atomic<Bool>(false)
    private let exit = Mutex<Exit>(Exit())

    private struct Exit {
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The largest request read whole; a longer datagram is cut, so it fails its length
    /// check and is dropped.
    static let largestDatagram = 2048

    /// Binds `host`:`port` (a name is resolved; port 0 picks a free one) and starts the thread.
    init(host: String, port: Int, metrics: ServerMetrics) throws(UDPError) {
        let operation = "bind \(host):\(port)"
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw UDPError(.unresolvable, operation: operation, detail: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw UDPError(.bindFailed, operation: operation, detail: String(cString: strerror(errno))) }
        guard Glibc.bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            close(descriptor)
            throw UDPError(code == EADDRINUSE ? .addressInUse : code == EADDRNOTAVAIL ? .notLocal : .bindFailed,
                           operation: operation, detail: String(cString: strerror(code)))
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        self.port = Self.endpoint(of: bound).port
        self.descriptor = descriptor
        let thread = Thread { [self] in answer(metrics: metrics) }
        thread.name = "confer-stun"
        thread.start()
    }

    /// Ends the thread: it leaves `recvfrom` at once and closes the socket.
    func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        // Shutting a UDP socket down says ENOTCONN but wakes a blocked reader, which then
        // reads nothing and sees `stopping`. Under the lock the thread closes the socket
        // under, and only if it has not: the thread may have seen `stopping` and ended
        // already, and a closed descriptor's number may belong to another socket by now.
        exit.withLock { state in
            if !state.ended { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Whether the thread has ended (and closed the socket).
    var hasEnded: Bool { exit.withLock { $0.ended } }

    /// Returns once the thread has ended.
    func finished() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = exit.withLock { state in
                if !state.ended { state.waiters.append(waiter) }
                return state.ended
            }
            if ended { waiter.resume() }
        }
    }

    private func answer(metrics: ServerMetrics) {
        var responder = STUNResponder()
        var datagram = [UInt8](repeating: 0, count: Self.largestDatagram)
        var source = sockaddr_storage()
        while !stopping.load(ordering: .relaxed) {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = datagram.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &source) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
                }
            }
            // EINTR, or an ICMP error for an earlier answer: neither ends the responder.
            guard count >= 0 else {
                if errno == EBADF || errno == ENOTSOCK { break }
                continue
            }
            if count == 0, stopping.load(ordering: .relaxed) { break }
            let (address, port) = Self.endpoint(of: source)
            let before = responder.counts
            if let answer = responder.respond(to: Array(datagram[..<count]), fromAddressBytes: address, port: port) {
                // A send that fails (the asker's port is gone) loses one answer; the asker resends.
                // MSG_NOSIGNAL: one racing stop()'s shutdown must not raise SIGPIPE.
                _ = answer.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &source) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                        }
                    }
                }
            }
            metrics.stun(responder.counts.answered > before.answered ? "answered" : responder.counts.refused > before.refused ? "refused" : "dropped")
        }
        let waiters = exit.withLock { state in
            close(descriptor)
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The 4 or 16 address bytes (network order) and the port of an IPv4 or IPv6 socket
    /// address; no bytes for another family.
    private static func endpoint(of storage: sockaddr_storage) -> (address: [UInt8], port: Int) {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                let v4 = raw.load(as: sockaddr_in.self)
                return (withUnsafeBytes(of: v4.sin_addr) { Array($0) }, Int(UInt16(bigEndian: v4.sin_port)))
            case AF_INET6:
                let v6 = raw.load(as: sockaddr_in6.self)
                return (withUnsafeBytes(of: v6.sin6_addr) { Array($0) }, Int(UInt16(bigEndian: v6.sin6_port)))
            default:
                return ([], 0)
            }
        }
    }
}
