public import ConferSession

/// Why a meeting or a call could not go on: the one error type of the client library
/// (``CallClientError`` is another name for it).
public enum MeetingClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused: the join (token, room, role or limit), or a call action.
    case refused(SessionRefusal)
    /// The session ended (declined, room closed, timed out, replaced, server shutdown, …).
    case ended(DisconnectReason)
    /// The server could not be reached (the detail says how).
    case unreachable(String)
    /// The server URL or the token cannot be used.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .refused(let reason): "the server refused (\(reason.rawValue)): \(reason.explanation)"
        case .ended(let reason): "the session ended: \(reason.rawValue)"
        case .unreachable(let detail): "cannot reach the server: \(detail)"
        case .invalidConfiguration(let detail): detail
        }
    }
}

/// Why a call action failed: the client library's one error type.
public typealias CallClientError = MeetingClientError
