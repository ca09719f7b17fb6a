// RFC 4585 §6.2.1: Generic NACK (RTPFB, FMT 1).

/// A negative acknowledgement: the media sender should retransmit the listed packets.
public struct RTCPGenericNACK: RTCPPacketContent {
    /// The feedback message type within RTPFB.
    public static let format: UInt8 = 1

    /// One FCI entry: a lost packet id and a bitmask of the 16 packets after it.
    public struct Item: Hashable, Sendable {
        /// PID: a lost sequence number.
        public var packetID: UInt16
        /// BLP: bit i set means packet `packetID + i + 1` is lost too.
        public var lostBitmask: UInt16

        /// An entry with `packetID` and `lostBitmask`.
        public init(packetID: UInt16, lostBitmask: UInt16) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }
    }

    /// The sender of this feedback.
    public var senderSSRC: UInt32
    /// The media source whose packets are lost.
    public var mediaSSRC: UInt32
    /// The FCI entries.
    public var items: [Item]

    /// A NACK with explicit entries.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, items: [Item]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.items = items
    }

    /// A NACK for `lostSequenceNumbers`, packed into as few entries as their order allows:
    /// each number within 16 after the current entry's PID joins its bitmask, any other
    /// starts a new entry (so give them in ascending, wrap-aware order for the tightest packing).
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) {
        var items: [Item] = []
        for sequenceNumber in lostSequenceNumbers {
            if let last = items.last {
                let distance = sequenceNumber &- last.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    items[items.count - 1].lostBitmask |= 1 << (distance - 1)
                    continue
                }
            }
            items.append(Item(packetID: sequenceNumber, lostBitmask: 0))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, items: items)
    }

    /// Every sequence number the entries declare lost, in entry and bit order.
    public var lostSequenceNumbers: [UInt16] {
        var numbers: [UInt16] = []
        for item in items {
            numbers.append(item.packetID)
            for bit in 0 ..< 16 where item.lostBitmask & (1 << bit) != 0 {
                numbers.append(item.packetID &+ UInt16(bit + 1))
            }
        }
        return numbers
    }

    public var serializedSize: Int { 12 + 4 * items.count }

    /// - Throws: ``RTCPError/notRepresentable(_:)`` for a NACK without entries, which
    ///   RFC 4585 §6.2.1 does not allow.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard !items.isEmpty else { throw .notRepresentable("a generic NACK needs at least one entry") }
        return try buffer.putFeedbackEntries(items, entrySize: 4, format: Self.format,
                                             packetType: RTCPPacketType.transportLayerFeedback,
                                             senderSSRC: senderSSRC, mediaSSRC: mediaSSRC) { item, position in
            buffer.put16(item.packetID, at: position)
            buffer.put16(item.lostBitmask, at: position + 2)
        }
    }

    /// - Throws: ``RTCPError/noEntries(packetType:offset:)`` when the FCI is empty
    ///   (RFC 4585 §6.2.1: "the FCI field MUST contain at least one"), and
    ///   ``RTCPError/badLength(packetType:offset:)`` when it is not whole 4-byte entries.
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        items = try packet.feedbackEntries(entrySize: 4) { Item(packetID: body.u16($0), lostBitmask: body.u16($0 + 2)) }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
    }
}
