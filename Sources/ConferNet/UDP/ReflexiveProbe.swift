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
    /// name lookup blocks too): at most ``STUNBindingTransaction/timeout`` of `poll`.
    static func ask(_ server: UDPAddress, from descriptor: CInt) async throws -> STUNBindingTransaction.Outcome {
        try await NIOThreadPool.singleton.runIfActive {
            let destination = try UDPSocket.resolve(server)
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
                while transaction.outcome == nil, let (count, source) = receive(from: descriptor, into: &buffer) {
                    _ = transaction.take(Array(buffer[..<count]), from: source)
                }
            }
            return transaction.outcome ?? .timedOut
        }
    }

    /// One datagram waiting on `descriptor` and its sender; nil when none is.
    private static func receive(from descriptor: CInt, into buffer: inout [UInt8]) -> (Int, UDPAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &length) }
            }
        }
        guard count >= 0 else { return nil }
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
        return (count, source)
    }
}

private extension Duration {
    /// Whole microseconds, clamped to `Int64`.
    var microsecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
