// RFC 3550 §6.5: SDES: Source Description RTCP Packet.

/// Source descriptions: for each source, items such as its CNAME (the canonical name that
/// ties its streams together for lip sync).
public struct RTCPSourceDescription: RTCPPacketContent {
    /// An SDES item type (RFC 3550 §6.5.1–§6.5.8).
    public struct ItemType: RawRepresentable, Hashable, Sendable {
        /// The 8-bit type number.
        public var rawValue: UInt8
        /// A type with number `rawValue`.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// CNAME: canonical end-point identifier.
        public static let cname = ItemType(rawValue: 1)
        /// NAME: user name.
        public static let name = ItemType(rawValue: 2)
        /// EMAIL: e-mail address.
        public static let email = ItemType(rawValue: 3)
        /// PHONE: phone number.
        public static let phone = ItemType(rawValue: 4)
        /// LOC: geographic location.
        public static let location = ItemType(rawValue: 5)
        /// TOOL: application or tool name.
        public static let tool = ItemType(rawValue: 6)
        /// NOTE: notice or status.
        public static let note = ItemType(rawValue: 7)
        /// PRIV: private extension (prefix length, prefix, value, all kept in ``Item/value``).
        public static let privateExtension = ItemType(rawValue: 8)
    }

    /// One item: a type and up to 255 bytes of value (UTF-8 text for the standard types).
    public struct Item: Hashable, Sendable {
        /// The item type (never 0, which ends a chunk's list).
        public var type: ItemType
        /// The value bytes.
        public var value: [UInt8]

        /// An item with raw `value` bytes.
        public init(type: ItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// An item whose value is `text` in UTF-8.
        public init(type: ItemType, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }

        /// The value decoded as UTF-8 (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// The items describing one source.
    public struct Chunk: Hashable, Sendable {
        /// The source described.
        public var ssrc: UInt32
        /// Its items, in order.
        public var items: [Item]

        /// A chunk for `ssrc` with `items`.
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The first CNAME item's text, if any.
        public var cname: String? { items.first { $0.type == .cname }?.text }

        /// Bytes the chunk takes: SSRC, items, a terminating null and padding to a word.
        var size: Int {
            var itemBytes = 0
            for item in items { itemBytes += 2 + item.value.count }
            return 4 + (itemBytes + 1 + 3) & ~3
        }
    }

    /// One chunk per source, at most 31.
    public var chunks: [Chunk]

    /// A description with `chunks`.
    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// The usual description: one source and its CNAME.
    public init(ssrc: UInt32, cname: String) {
        self.init(chunks: [Chunk(ssrc: ssrc, items: [Item(type: .cname, text: cname)])])
    }

    public var serializedSize: Int {
        var size = 4
        for chunk in chunks { size += chunk.size }
        return size
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard chunks.count <= 31 else { throw .notRepresentable("\(chunks.count) SDES chunks, at most 31 fit") }
        for chunk in chunks {
            for item in chunk.items {
                guard item.type.rawValue != 0, item.value.count <= 255 else {
                    throw .notRepresentable("SDES item type \(item.type.rawValue) with \(item.value.count) bytes")
                }
            }
        }
        let size = serializedSize
        try buffer.putRTCPHeader(count: UInt8(chunks.count), packetType: RTCPPacketType.sourceDescription, size: size)
        var position = 4
        for chunk in chunks {
            let end = position + chunk.size
            buffer.put32(chunk.ssrc, at: position)
            position += 4
            for item in chunk.items {
                buffer[position] = item.type.rawValue
                buffer[position + 1] = UInt8(item.value.count)
                buffer.putBytes(item.value, at: position + 2)
                position += 2 + item.value.count
            }
            // The null item that ends the list, then zeros to the word boundary.
            buffer.zero(position, end - position)
            position = end
        }
        return size
    }

    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        var chunks: [Chunk] = []
        var position = 0
        for _ in 0 ..< packet.count {
            try packet.require(4, at: position)
            var chunk = Chunk(ssrc: body.u32(position), items: [])
            position += 4
            while true {
                try packet.require(1, at: position)
                let type = body[position]
                if type == 0 {
                    // The list ends at a null octet; the next chunk starts at a word boundary.
                    position = min((position + 4) & ~3, body.count)
                    break
                }
                try packet.require(2, at: position)
                let length = Int(body[position + 1])
                try packet.require(2 + length, at: position)
                chunk.items.append(Item(type: ItemType(rawValue: type), value: Array(body.sub(position + 2, length))))
                position += 2 + length
            }
            chunks.append(chunk)
        }
        self.chunks = chunks
    }
}
