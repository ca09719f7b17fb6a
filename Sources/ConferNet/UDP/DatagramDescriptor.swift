import Glibc
import NIOCore

/// A UDP socket as a bare descriptor, for the code that makes its own system calls on one: a
/// device's STUN Binding before NIO takes its media socket, and the server's STUN thread.
public enum DatagramDescriptor {
    /// A sender as `recvfrom` gave it: answered as it is, read as bytes or as text.
    public struct Sender: @unchecked Sendable {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)

        /// The 4 or 16 address bytes (network order); none for another family.
        public var addressBytes: [UInt8] { endpoint.address }
        /// The port.
        public var port: Int { endpoint.port }
        /// The address as text and the port.
        public var address: UDPAddress {
            let (raw, port) = endpoint
            return UDPAddress(host: raw.isEmpty ? "?" : STUNAttribute.text(of: raw), port: port)
        }

        private var endpoint: (address: [UInt8], port: Int) {
            let family = CInt(storage.ss_family)
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

    /// What one `recvfrom` gave.
    public enum Received {
        /// A datagram of this many bytes (cut to the buffer) from this sender.
        case datagram(Int, Sender)
        /// No datagram: the errno instead (EAGAIN, an ICMP error with `IP_RECVERR`, EINTR…).
        case failed(CInt)
    }

    /// A UDP descriptor bound to `address` (a name is resolved; port 0 picks a free one),
    /// non-blocking unless `blocking`.
    public static func bind(_ address: UDPAddress, blocking: Bool = false) throws(UDPError) -> CInt {
        let resolved: SocketAddress
        do { resolved = try SocketAddress.makeAddressResolvingHost(address.host, port: address.port) } catch {
            throw UDPError(.unresolvable, operation: "resolve \(address)", detail: "\(error)")
        }
        let type = CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | (blocking ? 0 : CInt(SOCK_NONBLOCK.rawValue))
        let descriptor = socket(resolved.protocol.rawValue, type, 0)
        guard descriptor >= 0 else {
            throw UDPError(.bindFailed, operation: "bind \(address)", detail: String(cString: strerror(errno)))
        }
        let result = resolved.withSockAddr { pointer, length in Glibc.bind(descriptor, pointer, socklen_t(length)) }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw UDPError(code == EADDRINUSE ? .addressInUse : code == EADDRNOTAVAIL ? .notLocal : .bindFailed, operation: "bind \(address)",
                           detail: String(cString: strerror(code)))
        }
        return descriptor
    }

    /// The port `descriptor` is bound to.
    public static func localPort(_ descriptor: CInt) -> Int {
        var sender = Sender()
        _ = withUnsafeMutablePointer(to: &sender.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &sender.length) }
        }
        return sender.port
    }

    /// One datagram waiting on `descriptor` (or, on a blocking one, the next), or the error instead.
    public static func receive(from descriptor: CInt, into buffer: inout [UInt8]) -> Received {
        var sender = Sender()
        var failure: CInt = 0
        let count = buffer.withUnsafeMutableBytes { bytes in
            withUnsafeMutablePointer(to: &sender.storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    let count = recvfrom(descriptor, bytes.baseAddress, bytes.count, 0, $0, &sender.length)
                    if count < 0 { failure = errno }
                    return count
                }
            }
        }
        return count >= 0 ? .datagram(count, sender) : .failed(failure)
    }

    /// Sends `bytes` to `sender` on `descriptor`, without SIGPIPE; false when it failed.
    @discardableResult
    public static func send(_ bytes: [UInt8], on descriptor: CInt, to sender: Sender) -> Bool {
        var sender = sender
        let length = sender.length
        return bytes.withUnsafeBytes { bytes in
            withUnsafePointer(to: &sender.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL), $0, length) }
            }
        } >= 0
    }
}
