/// Everything a device sends the call server on `/v1/calls`. The first message on a
/// connection is `hello`; the rest act on calls this user is part of.
public enum CallClientMessage: Sendable, Codable, Hashable {
    /// Sign in with `token` as `device` (a name unique among this user's devices, such as
    /// "laptop"); a second connection with the same device name replaces the first.
    case hello(token: String, device: String)
    /// Keepalive; the server answers `pong` with the same value.
    case ping(sent: Int64?)
    /// Call `callee`; `ref` comes back with the call (or the refusal). Timeouts in seconds
    /// replace the server's for this call. `codec` is the video codec the caller will send
    /// (`vp8`, `vp9`, `h264`), which the callee's devices see while it rings, as a SIP
    /// INVITE carries its offer: a device that cannot take it can say so before answering.
    case dial(ref: UInt64, callee: String, video: Bool, customItems: [String: String]?, ringingTimeout: Double?, connectionTimeout: Double?,
              codec: String? = nil)
    /// Answer a ringing call on this device.
    case accept(call: String)
    /// Refuse a ringing call (for every device of this user).
    case decline(call: String)
    /// Hang up: cancel while ringing, end once answered; `lost` when this side's media
    /// stopped and did not come back.
    case end(call: String, lost: Bool)
    /// Where this device receives the call's media and what it sends.
    case media(call: String, MediaDescription)
    /// This device decodes the other side's media.
    case mediaConnected(call: String)
    /// This side's answering device could not start its media.
    case acceptFailed(call: String)
    /// This side's microphone and camera, on or off.
    case settings(call: String, CallSettings)
    /// Set or replace custom items.
    case setItems(call: String, items: [String: String])
    /// Delete custom items.
    case deleteItems(call: String, keys: [String])
    /// A page of this user's call log; `ref` comes back with it.
    case log(ref: UInt64, CallLogQuery)

    /// The message's name on the wire.
    public var typeName: String {
        switch self {
        case .hello: "hello"
        case .ping: "ping"
        case .dial: "dial"
        case .accept: "accept"
        case .decline: "decline"
        case .end: "end"
        case .media: "media"
        case .mediaConnected: "mediaConnected"
        case .acceptFailed: "acceptFailed"
        case .settings: "settings"
        case .setItems: "setItems"
        case .deleteItems: "deleteItems"
        case .log: "log"
        }
    }

    /// The call the message is about, if any.
    public var callID: String? {
        switch self {
        case .accept(let call), .decline(let call), .end(let call, _), .media(let call, _), .mediaConnected(let call),
             .acceptFailed(let call), .settings(let call, _), .setItems(let call, _), .deleteItems(let call, _): call
        case .hello, .ping, .dial, .log: nil
        }
    }

    /// Every name ``typeName`` can give.
    public static let typeNames: Set<String> = [
        "hello", "ping", "dial", "accept", "decline", "end", "media", "mediaConnected", "acceptFailed", "settings", "setItems",
        "deleteItems", "log",
    ]
}

/// Everything the call server sends a device.
public enum CallServerMessage: Sendable, Codable, Hashable {
    /// Signed in: who, as which device, how often to ping; `stunPort` as in
    /// ``ServerMessage/welcome(identity:role:room:keepaliveSeconds:serverTime:stunPort:)``.
    case welcome(identity: String, device: String, keepaliveSeconds: Double, serverTime: SessionTime, stunPort: Int? = nil)
    /// The call `ref` asked for was placed.
    case dialed(ref: UInt64, call: CallInfo)
    /// A call rings on this device.
    case incoming(CallInfo)
    /// A call this device is part of changed (or ended).
    case call(CallInfo)
    /// A page of the call log `ref` asked for.
    case log(ref: UInt64, page: CallLogPage)
    /// A request was refused; nothing else changed.
    case refused(action: String, ref: UInt64?, call: String?, reason: SessionRefusal)
    /// The connection ends for `reason`; it closes next.
    case disconnected(reason: DisconnectReason)
    /// The answer to `ping`.
    case pong(sent: Int64?)
    /// The device's token, renewed while it is signed in (``CallRules/refreshesTokens``):
    /// the client signs in again with it from now on, as the first one may have expired.
    case tokenRefreshed(token: String)

    /// The message's name on the wire.
    public var typeName: String {
        switch self {
        case .welcome: "welcome"
        case .dialed: "dialed"
        case .incoming: "incoming"
        case .call: "call"
        case .log: "log"
        case .refused: "refused"
        case .disconnected: "disconnected"
        case .pong: "pong"
        case .tokenRefreshed: "tokenRefreshed"
        }
    }

    /// Every name ``typeName`` can give.
    public static let typeNames: Set<String> = ["welcome", "dialed", "incoming", "call", "log", "refused", "disconnected", "pong", "tokenRefreshed"]
}
