#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ConferSession
import NIOHTTP1

/// The server's admin API (`/v1/rooms`), typed: list, open, show and close rooms, speak in
/// them, kick members and change their roles.
///
/// Every call is one HTTP request with the admin token, over TLS for `https://` (trusting
/// `trustedCertificates` for a self-signed server, as a ``MeetingClientConfiguration`` does).
/// A client and its copies keep one connection open between requests, and send one request
/// at a time on it.
/// Failures are an ``AdminError`` a caller can switch on.
///
/// ```swift
/// let admin = try AdminClient(server: "http://127.0.0.1:7880", adminToken: token)
/// _ = try await admin.createRoom("standup", name: "Daily standup", memberLimit: 8)
/// for room in try await admin.rooms() { print(room.room.id, room.members) }
/// try await admin.kick("bob", from: "standup")
/// ```
public struct AdminClient: Sendable {
    /// The server's base URL, as given.
    public let server: String
    /// How long one request may take, connecting included.
    public var timeout: Duration = .seconds(30)
    private let connection: HTTPConnection
    private let adminToken: String

    /// A client of `server` (`http://`, `https://`, `ws://` or `wss://`) with the admin token
    /// `confer serve --admin-token` was started with.
    public init(server: String, adminToken: String, trustedCertificates: String? = nil) throws(AdminError) {
        var configuration = MeetingClientConfiguration(server: server, token: "")
        configuration.trustedCertificates = trustedCertificates
        let endpoint: SignalEndpoint
        do throws(MeetingClientError) { endpoint = try configuration.endpoint(path: "") } catch {
            throw .invalidConfiguration(error.description)
        }
        // The endpoint's URL is ws(s)://AUTHORITY[/PREFIX]/ with the TLS settings worked out.
        let secure = endpoint.url.hasPrefix("wss://")
        let rest = endpoint.url.dropFirst(secure ? 6 : 5)
        let authority = rest.prefix { $0 != "/" }
        var prefix = String(rest.dropFirst(authority.count))
        while prefix.hasSuffix("/") { prefix.removeLast() }
        guard let (host, port) = Self.hostAndPort(authority, defaultPort: secure ? 443 : 80) else {
            throw .invalidConfiguration("the server URL has no usable host and port (got \(server))")
        }
        connection = HTTPConnection(.init(host: host, port: port, tls: endpoint.tls,
                                          serverName: endpoint.sniHostname ?? (configuration.hostIsIPAddress ? nil : host), basePath: prefix))
        self.server = server
        self.adminToken = adminToken
    }

    /// The open rooms.
    public func rooms() async throws(AdminError) -> [RoomSummary] {
        try decode([RoomSummary].self, from: await request(.GET, "/v1/rooms"))
    }

    /// Opens room `id` ahead of its members; it waits for a first member as long as the
    /// server's unused-room timeout. Throws ``AdminError/roomExists`` when it is open already.
    public func createRoom(_ id: String, name: String? = nil, description: String? = nil,
                           memberLimit: Int? = nil) async throws(AdminError) -> RoomSummary {
        struct Body: Encodable {
            var id: String
            var name: String?
            var description: String?
            var memberLimit: Int?
        }
        let body = Body(id: id, name: name, description: description, memberLimit: memberLimit)
        return try decode(RoomSummary.self, from: await request(.POST, "/v1/rooms", body: body))
    }

    /// Room `id` with its members and their live figures.
    public func room(_ id: String) async throws(AdminError) -> RoomSnapshot {
        try decode(RoomSnapshot.self, from: await request(.GET, "/v1/rooms/\(RoomWatch.pathSegment(id))"))
    }

    /// Closes room `id`, ending every member's session.
    public func closeRoom(_ id: String) async throws(AdminError) {
        _ = try await request(.DELETE, "/v1/rooms/\(RoomWatch.pathSegment(id))")
    }

    /// Sends `text` from the server to everyone in `room`, or to the members `to` names.
    public func send(_ text: String, to recipients: [String]? = nil, in room: String) async throws(AdminError) {
        struct Body: Encodable {
            var text: String
            var to: [String]?
        }
        _ = try await request(.POST, "/v1/rooms/\(RoomWatch.pathSegment(room))/messages", body: Body(text: text, to: recipients))
    }

    /// Removes member `identity` from `room`; its tokens from before the kick no longer
    /// admit it there.
    public func kick(_ identity: String, from room: String) async throws(AdminError) {
        _ = try await request(.DELETE, "/v1/rooms/\(RoomWatch.pathSegment(room))/members/\(RoomWatch.pathSegment(identity))")
    }

    /// Makes member `identity` of `room` a `role` (host only from participant).
    public func setRole(of identity: String, to role: MemberRole, in room: String) async throws(AdminError) {
        struct Body: Encodable {
            var role: MemberRole
        }
        _ = try await request(.PUT, "/v1/rooms/\(RoomWatch.pathSegment(room))/members/\(RoomWatch.pathSegment(identity))/role",
                              body: Body(role: role))
    }

    /// Sets where `room`'s host forwards the meeting for an outside audience (whoever hosts
    /// it, now and after a transfer), or stops the forward (nil). An address that is not an
    /// IP address and a port (``RoomForward/validate()``) is refused before it is sent.
    public func setForward(_ forward: RoomForward?, in room: String) async throws(AdminError) {
        let path = "/v1/rooms/\(RoomWatch.pathSegment(room))/forward"
        guard let forward else {
            _ = try await request(.DELETE, path)
            return
        }
        do throws(RoomForwardError) { try forward.validate() } catch { throw .invalidConfiguration(error.description) }
        _ = try await request(.PUT, path, body: forward)
    }

    // MARK: - The exchange

    private func request(_ method: HTTPMethod, _ path: String, body: some Encodable) async throws(AdminError) -> [UInt8] {
        guard let data = try? JSONEncoder().encode(body) else { throw .invalidConfiguration("the request cannot be written as JSON") }
        return try await request(method, path, json: Array(data))
    }

    private func request(_ method: HTTPMethod, _ path: String, json bytes: [UInt8]? = nil) async throws(AdminError) -> [UInt8] {
        var headers = [("Authorization", "Bearer \(adminToken)"), ("Accept", "application/json")]
        if bytes != nil { headers.append(("Content-Type", "application/json")) }
        let response: HTTPConnection.Response
        do throws(HTTPConnection.Failure) {
            response = try await connection.send(method, path, headers: headers, body: bytes, timeout: timeout)
        } catch {
            switch error {
            case .unreachable(let detail): throw .unreachable("\(detail): is `confer serve` running at \(server)?")
            case .timedOut: throw .timedOut
            case .tooLarge: throw .unexpectedResponse("an answer over \(HTTPConnection.maximumBodyBytes >> 20) MiB")
            case .closedBeforeAnswer: throw .unreachable("the server closed the connection before answering")
            }
        }
        guard (200 ..< 300).contains(response.status) else { throw AdminError(status: response.status, body: response.body) }
        return response.body
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from body: [UInt8]) throws(AdminError) -> Value {
        do { return try JSONDecoder().decode(type, from: Data(body)) } catch {
            throw .unexpectedResponse("not the \(type) expected (\(body.count) bytes)")
        }
    }

    /// `authority` ("host", "host:port", "[v6]" or "[v6]:port") as a host and a port.
    static func hostAndPort(_ authority: Substring, defaultPort: Int) -> (String, Int)? {
        var host = authority
        var port = defaultPort
        if let close = authority.lastIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex) ..< close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let value = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = authority[..<colon]
            port = value
        }
        guard !host.isEmpty, (1 ... 65535).contains(port) else { return nil }
        return (String(host), port)
    }
}
