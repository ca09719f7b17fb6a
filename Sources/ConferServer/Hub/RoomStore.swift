public import ConferSession

/// A room as the server keeps it: keys from the system's secure generator.
public typealias ServerRoom = RoomState<SystemRandomNumberGenerator>

/// Where the server keeps its rooms. In memory by default; a shared store (a database
/// other servers read) is another conformance, not a rewrite of the hub.
public protocol RoomStore: Sendable {
    /// The room with this id, if it is open.
    func room(_ id: String) -> ServerRoom?
    /// Keeps `room` (new or changed).
    mutating func save(_ room: ServerRoom)
    /// Forgets a closed room.
    mutating func remove(_ id: String)
    /// Every open room's id.
    var roomIDs: [String] { get }
}

/// Rooms in this process's memory.
public struct InMemoryRoomStore: RoomStore {
    private var rooms: [String: ServerRoom] = [:]

    /// An empty store.
    public init() {}

    /// The room with this id, if it is open.
    public func room(_ id: String) -> ServerRoom? { rooms[id] }
    /// Keeps `room`.
    public mutating func save(_ room: ServerRoom) { rooms[room.info.id] = room }
    /// Forgets a closed room.
    public mutating func remove(_ id: String) { rooms.removeValue(forKey: id) }
    /// Every open room's id, sorted, so rooms are visited in one order.
    public var roomIDs: [String] { rooms.keys.sorted() }
}
