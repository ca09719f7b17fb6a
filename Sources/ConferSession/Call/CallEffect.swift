/// One device of a user signed in to the call server: the identity and the device's name.
public struct CallDevice: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The user.
    public var identity: String
    /// The device's name, unique among the user's devices.
    public var device: String

    /// The device `device` of `identity`.
    public init(identity: String, device: String) {
        self.identity = identity
        self.device = device
    }

    public var description: String { "\(identity)/\(device)" }
}

/// What the driver of a ``CallSwitchboard`` must do after an input, in this order.
public enum CallEffect: Sendable, Hashable {
    /// Write (insert or replace) the call's record in the log, before anyone is told.
    case record(CallRecord)
    /// Send `message` to the connection `address`.
    case send(SessionAddress, CallServerMessage)
    /// Send the reason, then close the connection.
    case end(SessionAddress, DisconnectReason)
    /// Sign `claims` with the server's secret and send the token to the connection
    /// (``CallServerMessage/tokenRefreshed(token:)``): the device's token, renewed while it
    /// is signed in (``CallRules/refreshesTokens``), for it to sign in again with.
    case refreshToken(SessionAddress, TokenClaims)
}
