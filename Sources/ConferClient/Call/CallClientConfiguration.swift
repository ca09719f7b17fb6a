public import ConferSession

/// Where and as which device a ``CallClient`` signs in.
public struct CallClientConfiguration: Sendable {
    /// The server's base URL (`http://`, `https://`, `ws://` or `wss://`, host and port).
    public var server: String
    /// A token for calls (`confer token --calls`).
    public var token: String
    /// This device's name, unique among the user's devices ("phone", "laptop").
    public var device: String
    /// For `https`/`wss`: a PEM file of certificates to trust instead of the system's.
    public var trustedCertificates: String?
    /// How long reconnection goes on after the connection drops (the server keeps this
    /// device's calls as long).
    public var reconnectWindow: Duration = CallRules().reconnectWindow

    /// A configuration for `server`, `token` and `device`.
    public init(server: String, token: String, device: String = "default") {
        self.server = server
        self.token = token
        self.device = device
    }
}

/// Something that happened to a call, as one device sees it.
public enum CallEvent: Sendable, Hashable {
    /// The phase changed.
    case phase(CallPhase)
    /// The other side's microphone or camera changed.
    case remoteSettings(CallSettings)
    /// The custom items changed (all of them as they stand).
    case customItems([String: String])
    /// The other side's connection dropped; it may come back.
    case reconnecting(String)
    /// The other side is back.
    case reconnected(String)
    /// The media set-up arrived: where the other side is and the keys.
    case media(CallMedia)
    /// The call ended, with this result.
    case ended(CallEndResult)
    /// An action on the call was refused.
    case refused(action: String, reason: SessionRefusal)
}
