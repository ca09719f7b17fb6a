import Foundation

/// A UDP socket on loopback that nobody reads until asked how many datagrams reached it: the
/// machine a reflection would flood, or an SFU's ingest port.
final class CountingUDPSocket {
    private let descriptor: Int32
    /// The port it is bound to.
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        self.descriptor = descriptor
        guard let port = bindToLoopback(descriptor) else {
            _ = Glibc.close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.port = port
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Reads whatever is waiting, without blocking: the size of each datagram, in order.
    func datagramSizes() -> [Int] { datagrams().map(\.count) }

    /// Reads whatever is waiting, without blocking: each datagram, in order.
    func datagrams() -> [[UInt8]] { datagramsWithPorts().map(\.bytes) }

    /// Reads whatever is waiting, without blocking: each datagram with the port it came from
    /// (which of several senders on loopback sent it), in order.
    func datagramsWithPorts() -> [(port: Int, bytes: [UInt8])] {
        var datagrams: [(port: Int, bytes: [UInt8])] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var source = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let size = withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length) }
            }
            guard size >= 0 else { return datagrams }
            datagrams.append((Int(UInt16(bigEndian: source.sin_port)), Array(buffer[0 ..< size])))
        }
    }

    /// Sends `bytes` from this socket to `port` on loopback: a datagram whose source is this
    /// machine's address, as someone forging it would send.
    func send(_ bytes: [UInt8], toPort port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    func close() { _ = Glibc.close(descriptor) }
}

/// Binds `descriptor` to a free port on 127.0.0.1; the port, or nil.
func bindToLoopback(_ descriptor: Int32) -> Int? {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}
