/// Where a member's signaling connection stands, as its client shows it.
public enum ConnectionState: Sendable, Hashable, Codable {
    /// Not connected; after a session, the reason it ended.
    case disconnected(DisconnectReason?)
    /// Opening the first connection.
    case connecting
    /// Connected and joined (or waiting for approval).
    case connected
    /// The connection dropped; trying again (the attempt, from 1).
    case reconnecting(attempt: Int)
    /// Connected again within the grace window, as the same member.
    case reconnected

    /// A short name for logs and `--events`.
    public var name: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .reconnected: "reconnected"
        }
    }
}
