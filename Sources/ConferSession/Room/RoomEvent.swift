/// Something that happened in a room, sent to the members it concerns.
public enum RoomEvent: Sendable, Codable, Hashable {
    /// A participant asks to join (to the host).
    case joinRequested(JoinRequest)
    /// A join request ended without the requester joining, or an application ended
    /// (to the host; `approved` requests are followed by `memberJoined`).
    case joinRequestEnded(identity: String, outcome: JoinRequestOutcome)
    /// An observer applies to become a participant (to the host).
    case applicationReceived(JoinRequest)
    /// A member was admitted (to everyone already in).
    case memberJoined(RoomMember)
    /// A member's role, devices, presence, address or figures changed.
    case memberUpdated(RoomMember)
    /// A member left, for the reason given.
    case memberLeft(identity: String, reason: DisconnectReason)
    /// The host changed (to everyone).
    case hostChanged(identity: String?)
    /// The host (or an administrator) turned a device of this member off.
    case deviceTurnedOff(identity: String, device: MediaDevice)
    /// The host asks a member to turn a device on (to the member asked and the host).
    case deviceRequested(DeviceRequest)
    /// A device request ended (to the host and the member asked).
    case deviceRequestEnded(id: UInt64, identity: String, device: MediaDevice, outcome: DeviceRequestOutcome)
    /// A chat or custom message.
    case message(ChatMessage)
    /// A media grant for a member (to the host and that member).
    case mediaGranted(identity: String, grant: MediaGrant)
    /// The room is closing; every session ends with `roomClosed`.
    case roomClosed
    /// The administrator set the room's forward, or stopped it (nil): to the host only.
    case forwardChanged(RoomForward?)
}
