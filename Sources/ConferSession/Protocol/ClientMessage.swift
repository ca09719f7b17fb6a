/// Everything a member's client sends the server. The first message on a connection is
/// `join`; the rest act in the room the join entered.
public enum ClientMessage: Sendable, Codable, Hashable {
    /// Enter `room` with `token` (the only message accepted before joining); `devices`, the
    /// states a participant or host enters with (both on when nil), so that a member who
    /// joins with its camera off is never shown, or sent, with it on.
    case join(token: String, room: String, devices: DeviceStates? = nil)
    /// Keepalive; the server answers `pong` with the same value.
    case ping(sent: Int64?)
    /// Leave the room (or withdraw a waiting join request).
    case leave
    /// Withdraw a waiting join request.
    case cancelJoin
    /// Host: admit a waiting participant.
    case approve(identity: String)
    /// Host: refuse a waiting participant.
    case decline(identity: String)
    /// Host: remove a member; its tokens from before the kick no longer admit it.
    case kick(identity: String)
    /// Host: end the meeting for everyone.
    case closeRoom
    /// Host: hand the host role to a participant.
    case transferHost(identity: String)
    /// Turn one of one's own devices on or off.
    case setDevice(device: MediaDevice, on: Bool)
    /// Host: turn a member's device off.
    case turnOff(identity: String, device: MediaDevice)
    /// Host: ask a member to turn a device on.
    case requestDevice(identity: String, device: MediaDevice)
    /// Answer a device request addressed to oneself.
    case answerDeviceRequest(id: UInt64, accept: Bool)
    /// Observer: apply to become a participant.
    case applyForParticipant
    /// Host: answer an observer's application.
    case answerApplication(identity: String, approve: Bool)
    /// A chat message (`kind` nil) or a custom message, to everyone or to listed members.
    case send(to: [String]?, kind: String?, text: String)
    /// Where (and, the host, how) this member exchanges media.
    case announceMedia(MediaDescription)
    /// This member's live figures.
    case report(ConnectInfo)

    /// The message's name on the wire (the key of its JSON object).
    public var typeName: String {
        switch self {
        case .join: "join"
        case .ping: "ping"
        case .leave: "leave"
        case .cancelJoin: "cancelJoin"
        case .approve: "approve"
        case .decline: "decline"
        case .kick: "kick"
        case .closeRoom: "closeRoom"
        case .transferHost: "transferHost"
        case .setDevice: "setDevice"
        case .turnOff: "turnOff"
        case .requestDevice: "requestDevice"
        case .answerDeviceRequest: "answerDeviceRequest"
        case .applyForParticipant: "applyForParticipant"
        case .answerApplication: "answerApplication"
        case .send: "send"
        case .announceMedia: "announceMedia"
        case .report: "report"
        }
    }

    /// Every name ``typeName`` can give, to tell an unknown message from a malformed one.
    public static let typeNames: Set<String> = [
        "join", "ping", "leave", "cancelJoin", "approve", "decline", "kick", "closeRoom", "transferHost", "setDevice",
        "turnOff", "requestDevice", "answerDeviceRequest", "applyForParticipant", "answerApplication", "send",
        "announceMedia", "report",
    ]
}
