/// A room as one member sees it at one moment: sent when it is admitted and again when it
/// resumes, so its state is the server's.
public struct RoomSnapshot: Sendable, Codable, Hashable {
    /// The room's names.
    public var room: RoomInfo
    /// The host's identity, if a host is in the room.
    public var host: String?
    /// Every member, in order of admission.
    public var members: [RoomMember]
    /// Waiting join requests (the host's view only; empty for others).
    public var joinRequests: [JoinRequest]
    /// Waiting applications from observers (the host's view only).
    public var applications: [JoinRequest]
    /// Device requests addressed to this member, or all of them in the host's view.
    public var deviceRequests: [DeviceRequest]
    /// Kept messages this member may read.
    public var messages: [ChatMessage]
    /// Media grants: this member's own, and in the host's view every member's, by identity.
    public var media: [String: MediaGrant]
    /// Where the host forwards the meeting for an outside audience, as the administrator
    /// set it (the host's and the administrator's view only).
    public var forward: RoomForward? = nil

    /// The member with this identity.
    public func member(_ identity: String) -> RoomMember? { members.first { $0.identity == identity } }
}
