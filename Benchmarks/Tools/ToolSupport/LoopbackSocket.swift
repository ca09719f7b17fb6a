import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain UDP socket on 127.0.0.1, for tools that need one outside NIO: an address nothing
/// reads (CallLatency), or a client that polls its own descriptor (STUNLoad).
public enum LoopbackSocket {
    /// A UDP socket bound to 127.0.0.1 on a free port: its descriptor and port.
    public static func bind() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
