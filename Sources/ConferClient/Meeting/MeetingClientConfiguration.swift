#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ConferSession
import NIOSSL

/// A WebSocket endpoint of the server and how to reach it.
struct SignalEndpoint {
    var url: String
    var tls: TLSConfiguration?
    var sniHostname: String?
}

/// Where and as whom a ``MeetingClient`` joins.
public struct MeetingClientConfiguration: Sendable {
    /// The server's base URL (`http://`, `https://`, `ws://` or `wss://`, host and port).
    /// Name the host by a name or an IPv4 address: the WebSocket client cannot reach a
    /// host written as an IPv6 address (`[::1]`), and the client refuses one when it is made.
    public var server: String
    /// The token `confer token` (or the app's backend) minted.
    public var token: String
    /// For `https`/`wss`: a PEM file of certificates to trust instead of the system's, as
    /// for a server with a self-signed certificate.
    public var trustedCertificates: String?
    /// How long reconnection goes on after the connection drops (the server keeps the
    /// member as long).
    public var reconnectGrace: Duration = .seconds(20)
    /// The camera and microphone the member joins with (both on by default): with one off,
    /// the room shows it off from the start and the member's media never sends it. A
    /// connection that resumes keeps what the member has since turned on or off.
    public var devices = DeviceStates()

    /// A configuration for `server` and `token`.
    public init(server: String, token: String) {
        self.server = server
        self.token = token
    }

    /// The WebSocket URL of the endpoint at `path`.
    func webSocketURL(path: String) throws(MeetingClientError) -> (url: String, secure: Bool) {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        for (scheme, replacement, secure) in [("http://", "ws://", false), ("https://", "wss://", true), ("ws://", "ws://", false),
                                              ("wss://", "wss://", true)] where base.hasPrefix(scheme) {
            return (replacement + base.dropFirst(scheme.count) + "/" + path, secure)
        }
        throw .invalidConfiguration("the server URL must start with http://, https://, ws:// or wss:// (got \(server))")
    }

    /// The endpoint at `path` with the TLS settings to reach it.
    func endpoint(path: String) throws(MeetingClientError) -> SignalEndpoint {
        let (url, secure) = try webSocketURL(path: path)
        guard secure else { return SignalEndpoint(url: url, tls: nil, sniHostname: nil) }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let path = trustedCertificates {
            do { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path)) } catch {
                throw .invalidConfiguration("cannot read the certificates in \(path): \(error)")
            }
        }
        var sni: String?
        if hostIsIPAddress {
            // TLS cannot name an IP address in SNI (NIOSSL refuses it). With the server's
            // certificate pinned by --trust, the chain check against it is what proves the
            // server; without one there would be nothing to check the address against.
            guard trustedCertificates != nil else {
                throw .invalidConfiguration("a wss:// server by IP address needs its certificate given to trust (--trust), or use its host name")
            }
            tls.certificateVerification = .noHostnameVerification
            sni = "confer-server"
        }
        return SignalEndpoint(url: url, tls: tls, sniHostname: sni)
    }

    /// The endpoint of the WebSocket at `path`, as ``endpoint(path:)``; refuses a server
    /// named by an IPv6 address, which the WebSocket client cannot reach: swift-websocket
    /// (1.6.2) reads a URL's host up to its first colon, so `[::1]` would be looked up as `[`.
    func webSocketEndpoint(path: String) throws(MeetingClientError) -> SignalEndpoint {
        if let address = ipv6Host {
            throw .invalidConfiguration("the WebSocket client cannot connect to a server named by an IPv6 address ([\(address)]): "
                                        + "name it by a host name that resolves to that address, or by an IPv4 address")
        }
        return try endpoint(path: path)
    }

    /// The IPv6 address between the brackets of the server URL's host, if it names one.
    var ipv6Host: Substring? {
        guard let schemeEnd = server.firstRange(of: "://") else { return nil }
        let host = server[schemeEnd.upperBound...].prefix { $0 != "/" }
        guard host.hasPrefix("["), let close = host.firstIndex(of: "]") else { return nil }
        return host[host.index(after: host.startIndex)..<close]
    }

    /// Whether the server URL names its host by an IPv4 or IPv6 address.
    var hostIsIPAddress: Bool {
        guard let schemeEnd = server.firstRange(of: "://") else { return false }
        var host = server[schemeEnd.upperBound...].prefix { $0 != "/" }
        if host.hasPrefix("[") { return true }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        return !host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// The token's claims, read without checking the signature (the server checks it): the
    /// client needs the room to ask for.
    func unverifiedClaims() throws(MeetingClientError) -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidConfiguration("the token is not a JWT (expected three dot-separated parts)") }
        var base64 = String(parts[1].map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        struct Payload: Decodable {
            var sub: String
            var name: String?
            var room: String
            var role: MemberRole
            var nbf: Int64?
            var exp: Int64?
            var iat: Int64?
        }
        guard let data = Data(base64Encoded: base64), let payload = try? JSONDecoder().decode(Payload.self, from: data) else {
            throw .invalidConfiguration("the token's payload cannot be read")
        }
        return TokenClaims(identity: payload.sub, name: payload.name ?? payload.sub, room: payload.room, role: payload.role,
                           notBefore: payload.nbf ?? 0, expires: payload.exp ?? .max, issuedAt: payload.iat)
    }
}
