public import ConferSession

/// What a meeting app hears: the room's events, its own connection's changes, and the
/// server's refusals of what it asked.
public enum MeetingEvent: Sendable, Hashable {
    /// Something happened in the room.
    case room(RoomEvent)
    /// The connection changed state.
    case connection(ConnectionState)
    /// The join is waiting for the host.
    case waiting(JoinRequest)
    /// Admitted (again, after a resume or on becoming host).
    case joined(RoomSnapshot)
    /// A request was refused.
    case refused(action: String, reason: SessionRefusal)
}
