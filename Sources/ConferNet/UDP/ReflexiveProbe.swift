import ConferMedia
import NIOCore
import NIOPosix
import Glibc

/// The socket work of ``UDPSocket/withSocket(bindingTo:receiveBufferBytes:reflexiveThrough:_:)``
/// before NIO takes the socket over: bind a descriptor, and run one STUN Binding on it.
enum ReflexiveProbe {
    /// A non-blocking UDP descriptor bound to `address`.
    static func bind(_ address: UDPAddress) throws(UDPError) -> CInt {
        let resolved: SocketAddress
        do { resolved = try SocketAddress.makeAddressResolvingHost(address.host, port: address.port) } catch {
            throw UDPError(.unresolvable, operation: "resolve \(address)", detail: "\(error)")
        }
        let type = CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue)
        let descriptor = socket(resolved.protocol.rawValue, type, 0)
        guard descriptor >= 0 else {
            throw UDPError(.bindFailed, operation: "bind \(address)", detail: String(cString: strerror(errno)))
        }
        let result = resolved.withSockAddr { pointer, length in Glibc.bind(descriptor, pointer, socklen_t(length)) }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw UDPError(code == EADDRINUSE ? .addressInUse : code == EADDRNOTAVAIL ? .notLocal : .bindFailed, operation: "bind \(address)",
                           detail: String(cString: strerror(code)))
        }
        return descriptor
    }

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
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var failure: CInt = 0
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    let count = recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length)
                    if count < 0 { failure = errno }
                    return count
                }
            }
        }
        guard count >= 0 else { return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(failure) ? .unreachable : .nothing }
        let source: UDPAddress
        switch CInt(storage.ss_family) {
        case AF_INET:
            let v4 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            source = UDPAddress(host: STUNAttribute.text(of: withUnsafeBytes(of: v4.sin_addr) { Array($0) }),
                                port: Int(UInt16(bigEndian: v4.sin_port)))
        case AF_INET6:
            let v6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            source = UDPAddress(host: STUNAttribute.text(of: withUnsafeBytes(of: v6.sin6_addr) { Array($0) }),
                                port: Int(UInt16(bigEndian: v6.sin6_port)))
        default:
            source = UDPAddress(host: "?", port: 0)
        }
        return .datagram(count, source)
    }
}

private extension Duration {
    /// Whole microseconds, clamped to `Int64`.
    var microsecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
