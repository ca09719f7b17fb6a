import NIOCore
import NIOPosix

/// Why a connection to the server could not be made, in words for a person. NIO's own
/// description of a refused connection ("Connection errors: SingleConnectionFailure(target:
/// [IPv4]127.0.0.1/127.0.0.1:9, error: connection reset (error set): Connection refused)
/// (errno: 111)") names the same facts at length; this keeps the address and the reason.
enum ConnectionFailure {
    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            let attempts = error.connectionErrors.map { "\(address($0.target)): \(reason($0.error))" }
            if !attempts.isEmpty { return attempts.joined(separator: "; ") }
            if let lookup = error.dnsAError ?? error.dnsAAAAError { return "cannot look up \(error.host): \(lookup)" }
            return "cannot connect to \(error.host):\(error.port)"
        }
        return reason(error)
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        return "\(error)"
    }

    private static func address(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return "\(address)" }
        return address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
