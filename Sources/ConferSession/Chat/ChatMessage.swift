/// A chat or custom message in a room: to everyone, or to listed members.
public struct ChatMessage: Sendable, Codable, Hashable, Identifiable {
    /// The room's order of acceptance, from 1; every recipient sees increasing ids.
    public var id: UInt64
    /// The sender's identity (`nil` for a message from the server's administrators).
    public var from: String?
    /// The sender's own count, from 1, so a recipient can check per-sender order.
    public var senderSequence: UInt64
    /// The recipients, or `nil` for everyone in the room.
    public var to: [String]?
    /// `nil` for chat; an application's own type name for a custom message.
    public var kind: String?
    /// The text (or a custom message's payload).
    public var text: String
    /// When the room accepted it.
    public var sent: SessionTime

    /// Whether `identity` is among the recipients (the sender always is).
    public func isAddressed(to identity: String) -> Bool {
        guard let to else { return true }
        return identity == from || to.contains(identity)
    }
}
