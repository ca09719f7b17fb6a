/// Everything the server sends a member's client.
public enum ServerMessage: Sendable, Codable, Hashable {
    /// The token was accepted: who the session is, in which room, and how often to ping;
    /// `stunPort` is the UDP port (on the server's host) where a STUN Binding request tells
    /// a member the address its media socket is seen from, when the server answers any.
    case welcome(identity: String, role: MemberRole, room: RoomInfo, keepaliveSeconds: Double, serverTime: SessionTime, stunPort: Int? = nil)
    /// The join is a request waiting for the host.
    case waiting(JoinRequest)
    /// Admitted (or resumed, or promoted to host): the room as this member sees it.
    case joined(RoomSnapshot)
    /// Something happened in the room.
    case event(RoomEvent)
    /// A request was refused; nothing else changed.
    case refused(action: String, reason: SessionRefusal)
    /// The session ends for `reason`; the connection closes next.
    case disconnected(reason: DisconnectReason)
    /// The answer to `ping`.
    case pong(sent: Int64?)
    /// The member's token, renewed while it is connected (``RoomRules/refreshesTokens``):
    /// the client resumes with it from now on, as the first one may have expired.
    case tokenRefreshed(token: String)

    /// The message's name on the wire.
    public var typeName: String {
        switch self {
        case .welcome: "welcome"
        case .waiting: "waiting"
        case .joined: "joined"
        case .event: "event"
        case .refused: "refused"
        case .disconnected: "disconnected"
        case .pong: "pong"
        case .tokenRefreshed: "tokenRefreshed"
        }
    }

    /// Every name ``typeName`` can give.
    public static let typeNames: Set<String> = ["welcome", "waiting", "joined", "event", "refused", "disconnected", "pong", "tokenRefreshed"]
}
