#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ConferSession

/// Why an ``AdminClient`` request failed, or a ``RoomWatch`` could not start or ended early.
public enum AdminError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The admin token is missing or wrong.
    case unauthorized
    /// The server runs without an admin API (started without `--admin-token`).
    case adminDisabled
    /// No room of that name is open.
    case unknownRoom
    /// The room has no member of that identity.
    case unknownMember
    /// A room of that name is open already (``AdminClient/createRoom(_:name:description:memberLimit:)``).
    case roomExists
    /// The room refused the action (say, a role change it does not allow, or a full room),
    /// with the server's words.
    case refused(SessionRefusal, message: String)
    /// The server would not take the request as it was (its status and words).
    case rejected(status: Int, message: String)
    /// The server shut down (a watch's end).
    case serverShutdown
    /// The connection dropped without the server saying why (a watch's end).
    case connectionLost
    /// The server could not be reached (the detail says how).
    case unreachable(String)
    /// No whole answer came within ``AdminClient/timeout``.
    case timedOut
    /// The server answered with something that is not what the admin API sends.
    case unexpectedResponse(String)
    /// The server URL or the request cannot be used.
    case invalidConfiguration(String)

    /// What went wrong and what to do, for a person.
    public var description: String {
        switch self {
        case .unauthorized: "the server refused the admin token: give the one `confer serve --admin-token` was started with"
        case .adminDisabled: "the admin API is off: start the server with --admin-token"
        case .unknownRoom: "no such room is open"
        case .unknownMember: "no such member in the room"
        case .roomExists: "the room exists already"
        case .refused(_, let message): message
        case .rejected(let status, let message): "the server answered \(status): \(message)"
        case .serverShutdown: "the server shut down"
        case .connectionLost: "the connection to the server dropped"
        case .unreachable(let detail): "cannot reach the server: \(detail)"
        case .timedOut: "the server did not answer in time"
        case .unexpectedResponse(let detail): "the server's answer cannot be read: \(detail)"
        case .invalidConfiguration(let detail): detail
        }
    }

    /// The error for an answer of `status` (not 2xx) whose body is the admin API's
    /// `{"error": CODE, "message": TEXT}`, or anything else.
    init(status: Int, body: [UInt8]) {
        struct Body: Decodable {
            var error: String
            var message: String
        }
        let decoded = try? JSONDecoder().decode(Body.self, from: Data(body))
        switch (status, decoded.flatMap { SessionRefusal(rawValue: $0.error) }) {
        case (401, _): self = .unauthorized
        case (403, _): self = .adminDisabled
        case (_, .unknownRequest): self = .unknownRoom
        case (_, .unknownMember): self = .unknownMember
        case (_, .outOfOrder): self = .roomExists
        case (_, let refusal?): self = .refused(refusal, message: decoded?.message ?? refusal.rawValue)
        case (_, nil):
            let text = decoded?.message ?? String(decoding: body.prefix(200), as: UTF8.self)
            self = .rejected(status: status, message: text.isEmpty ? "no reason given" : text)
        }
    }
}
