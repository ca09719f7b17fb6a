/// What a member may do in a room.
public enum MemberRole: String, Sendable, Codable, CaseIterable, Hashable {
    /// Composites the room, answers join requests, and may kick, close, mute and ask.
    case host
    /// Sends its camera and microphone to the host and receives the composite; joins only
    /// when the host approves.
    case participant
    /// Receives the composite and sends nothing; joins without approval and may apply to
    /// become a participant.
    case observer

    /// Whether a member in this role sends media.
    public var sends: Bool { self != .observer }
}
