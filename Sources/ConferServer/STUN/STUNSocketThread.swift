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
        descriptor = try DatagramDescriptor.bind(UDPAddress(host: host, port: port), blocking: true)
        self.port = DatagramDescriptor.localPort(descriptor)
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
        while !stopping.load(ordering: .relaxed) {
            let received = DatagramDescriptor.receive(from: descriptor, into: &datagram)
            guard case .datagram(let count, let sender) = received else {
                // EINTR, or an ICMP error for an earlier answer: neither ends the responder.
                if case .failed(EBADF) = received { break }
                continue
            }
            if count == 0, stopping.load(ordering: .relaxed) { break }
            let before = responder.counts
            if let answer = responder.respond(to: Array(datagram[..<count]), fromAddressBytes: sender.addressBytes, port: sender.port) {
                // A send that fails (the asker's port is gone) loses one answer; the asker
                // resends. No SIGPIPE either when it races stop()'s shutdown.
                DatagramDescriptor.send(answer, on: descriptor, to: sender)
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
}
