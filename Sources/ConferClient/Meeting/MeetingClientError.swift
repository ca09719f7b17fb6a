public import ConferSession

/// Why joining a meeting failed.
public enum MeetingClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the join (token, room, role or limit).
    case refused(SessionRefusal)
    /// The session ended before it was admitted (declined, room closed, timed out, …).
    case ended(DisconnectReason)
    /// The server could not be reached (the detail says how).
    case unreachable(String)
    /// The server URL or the token cannot be used.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .refused(let reason): "the server refused the join: \(reason.rawValue)"
        case .ended(let reason): "the session ended: \(reason.rawValue)"
        case .unreachable(let detail): "cannot reach the server: \(detail)"
        case .invalidConfiguration(let detail): detail
        }
    }
}
