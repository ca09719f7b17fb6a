/// One member of a room as every member sees it.
public struct RoomMember: Sendable, Codable, Hashable, Identifiable {
    /// The identity its token gives; unique in the room.
    public var identity: String
    /// The display name its token gives.
    public var name: String
    /// What it may do.
    public var role: MemberRole
    /// Whether its signaling connection is up (a member whose connection dropped stays,
    /// offline, through the grace window).
    public var online: Bool
    /// Which of its devices are on.
    public var devices: DeviceStates
    /// Its slot (0 for the host, from 1 for the others), fixed while it stays.
    public var slot: UInt32
    /// Where (and, the host, how) it exchanges media, once it has said.
    public var media: MediaDescription?
    /// Its last reported live figures.
    public var connectInfo: ConnectInfo?
    /// When it was admitted.
    public var joined: SessionTime

    public var id: String { identity }
}
