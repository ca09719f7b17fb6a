/// A room's figures as the admin API lists them (`GET /v1/rooms`, and the answer to
/// creating one).
public struct RoomSummary: Sendable, Codable, Hashable {
    /// The room's names.
    public var room: RoomInfo
    /// The host, if one is in.
    public var host: String?
    /// Members in the room.
    public var members: Int
    /// Members whose connection is up.
    public var online: Int
    /// Join requests waiting.
    public var waiting: Int
    /// When it was created (Unix milliseconds).
    public var created: SessionTime

    /// A summary of `room` with these counts.
    public init(room: RoomInfo, host: String?, members: Int, online: Int, waiting: Int, created: SessionTime) {
        self.room = room
        self.host = host
        self.members = members
        self.online = online
        self.waiting = waiting
        self.created = created
    }
}
