/// Why a member's session ended: the one vocabulary the server sends, the client shows
/// and the metrics count.
public enum DisconnectReason: String, Sendable, Codable, CaseIterable, Hashable, Error {
    /// The member left.
    case left
    /// The host (or an administrator) removed the member.
    case kicked
    /// The host declined the join request.
    case declined
    /// The room closed: the host or an administrator closed it, or it emptied.
    case roomClosed
    /// The member's token expired while connected.
    case tokenExpired
    /// Another session joined with the same identity and replaced this one.
    case duplicateIdentity
    /// No keepalive, a join request nobody answered, or a lost connection not resumed
    /// within the grace window.
    case timedOut
    /// The server is shutting down.
    case serverShutdown
    /// The server refused the session before it joined (see the accompanying refusal).
    case refused

    /// The WebSocket close code (4000–4999 is the application's range) that carries it.
    public var closeCode: UInt16 {
        switch self {
        case .left: 4000
        case .kicked: 4001
        case .declined: 4002
        case .roomClosed: 4003
        case .tokenExpired: 4004
        case .duplicateIdentity: 4005
        case .timedOut: 4006
        case .serverShutdown: 4007
        case .refused: 4008
        }
    }

    /// The reason a close code carries, if it is one of ours.
    public init?(closeCode: UInt16) {
        guard let reason = Self.allCases.first(where: { $0.closeCode == closeCode }) else { return nil }
        self = reason
    }
}
