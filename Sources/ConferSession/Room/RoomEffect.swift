/// What the driver of a ``RoomState`` must do after an input: send, end sessions, forget
/// the room. Effects come in the order they must be carried out.
public enum RoomEffect: Sendable, Hashable {
    /// Send `message` to the session `session`.
    case send(SessionAddress, ServerMessage)
    /// Send the reason, then close the session's connection.
    case end(SessionAddress, DisconnectReason)
    /// Sign `claims` with the server's secret and send the token to the session
    /// (``ServerMessage/tokenRefreshed(token:)``): the member's token renewed while it is
    /// connected (``RoomRules/refreshesTokens``), for it to resume with.
    case refreshToken(SessionAddress, TokenClaims)
    /// The room is closed and holds no one; forget it.
    case discard
}

/// One connection of one identity: what effects are addressed to. A second connection
/// with the same identity is another address, so a replaced session cannot act.
public struct SessionAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The identity from the token.
    public var identity: String
    /// The server's number for the connection, unique while the server runs.
    public var connection: UInt64

    /// The address of `identity` on `connection`.
    public init(identity: String, connection: UInt64) {
        self.identity = identity
        self.connection = connection
    }

    public var description: String { "\(identity)#\(connection)" }
}
