/// What names a room.
public struct RoomInfo: Sendable, Codable, Hashable {
    /// The room's id (the token's `room`).
    public var id: String
    /// A display name.
    public var name: String
    /// A description.
    public var description: String

    /// A room named after its id unless told otherwise.
    public init(id: String, name: String? = nil, description: String = "") {
        self.id = id
        self.name = name ?? id
        self.description = description
    }
}
