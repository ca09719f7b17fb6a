/// The last messages of a room, kept for members who join later.
public struct ChatHistory: Sendable, Hashable {
    /// How many messages are kept.
    public let capacity: Int
    /// Kept messages, oldest first.
    public private(set) var messages: [ChatMessage] = []
    /// Messages accepted since the room opened.
    public private(set) var accepted: UInt64 = 0
    private var senderCounts: [String: UInt64] = [:]

    /// An empty history keeping the last `capacity` messages.
    public init(capacity: Int = 100) { self.capacity = max(0, capacity) }

    /// Accepts a message, numbering it in the room's order and the sender's.
    public mutating func append(from sender: String?, to recipients: [String]?, kind: String?, text: String,
                                at now: SessionTime) -> ChatMessage {
        accepted += 1
        let key = sender ?? ""
        let sequence = (senderCounts[key] ?? 0) + 1
        senderCounts[key] = sequence
        let message = ChatMessage(id: accepted, from: sender, senderSequence: sequence, to: recipients, kind: kind, text: text, sent: now)
        messages.append(message)
        if messages.count > capacity { messages.removeFirst(messages.count - capacity) }
        return message
    }

    /// The kept messages `identity` may read.
    public func visible(to identity: String) -> [ChatMessage] { messages.filter { $0.isAddressed(to: identity) } }
}
