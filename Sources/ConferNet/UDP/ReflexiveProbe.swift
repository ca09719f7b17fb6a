import ConferMedia
import NIOCore
import NIOPosix
import Glibc

/// The socket work of ``UDPSocket/withSocket(bindingTo:receiveBufferBytes:reflexiveThrough:_:)``
/// before NIO takes the socket over: run one STUN Binding on a bound descriptor.
enum ReflexiveProbe {
    /// Closes a descriptor NIO never took.
    static func close(_ descriptor: CInt) {
        _ = Glibc.close(descriptor)
    }

    /// Runs one Binding with `server` from `descriptor`, on NIO's blocking-I/O pool (the
    /// name lookup blocks too): at most ``STUNBindingTransaction/timeout`` of `poll`, less
    /// when an ICMP error says the server cannot be reached. An unconnected UDP socket hears
    /// of those only with `IP_RECVERR` (`IPV6_RECVERR`), which is on while the Binding runs;
    /// turning it off empties the error queue before NIO takes the socket. (Connecting the
    /// socket to the server instead would also report them, but disconnecting a socket bound
    /// to port 0 gives its port back, and the mapping the server saw with it.)
    static func ask(_ server: UDPAddress, from descriptor: CInt) async throws -> STUNBindingTransaction.Outcome {
        try await NIOThreadPool.singleton.runIfActive {
            let destination = try UDPSocket.resolve(server)
            setReceiveErrors(descriptor, on: true)
            defer { setReceiveErrors(descriptor, on: false) }
            let clock = ContinuousClock()
            let origin = clock.now
            func now() -> Timestamp { Timestamp(microseconds: (clock.now - origin).microsecondsClamped) }
            var random = SystemRandomNumberGenerator()
            var transaction = STUNBindingTransaction(server: destination.address, start: now(), random: &random)
            var buffer = [UInt8](repeating: 0, count: 1500)
            while transaction.outcome == nil {
                if transaction.sendDue(at: now()) {
                    _ = transaction.request.withUnsafeBytes { bytes in
                        destination.socketAddress.withSockAddr { pointer, length in
                            sendto(descriptor, bytes.baseAddress, bytes.count, 0, pointer, socklen_t(length))
                        }
                    }
                }
                guard let deadline = transaction.nextDeadline else { break }
                let wait = max(0, Int((deadline - now()).microseconds / 1000) + 1)
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, CInt(wait)) > 0 else { continue }
                receiving: while transaction.outcome == nil {
                    switch receive(from: descriptor, into: &buffer) {
                    case .datagram(let count, let source): _ = transaction.take(Array(buffer[..<count]), from: source)
                    case .unreachable: transaction.serverUnreachable()
                    case .nothing: break receiving
                    }
                }
            }
            return transaction.outcome ?? .timedOut
        }
    }

    /// Turns `IP_RECVERR` and `IPV6_RECVERR` on or off; the one of the other family fails, harmlessly.
    private static func setReceiveErrors(_ descriptor: CInt, on: Bool) {
        var value: CInt = on ? 1 : 0
        let size = socklen_t(MemoryLayout<CInt>.size)
        _ = setsockopt(descriptor, CInt(IPPROTO_IP), IP_RECVERR, &value, size)
        _ = setsockopt(descriptor, CInt(IPPROTO_IPV6), IPV6_RECVERR, &value, size)
    }

    /// What reading `descriptor` once gave.
    private enum Received {
        /// A datagram of this many bytes from this sender.
        case datagram(Int, UDPAddress)
        /// An ICMP error: the server's port is closed, or its host or network unreachable.
        case unreachable
        /// Nothing waiting (or another error).
        case nothing
    }

    /// One datagram waiting on `descriptor` and its sender, or the error waiting instead.
    private static func receive(from descriptor: CInt, into buffer: inout [UInt8]) -> Received {
        switch DatagramDescriptor.receive(from: descriptor, into: &buffer) {
        case .datagram(let count, let sender): .datagram(count, sender.address)
        case .failed(let failure): [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(failure) ? .unreachable : .nothing
        }
    }
}

private extension Duration {
    /// Whole microseconds, clamped to `Int64`.
    var microsecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
