/// One RFC 8285 header extension element seen in place: its id and a view of its data.
///
/// Valid only while the bytes the enclosing ``RTPPacketView`` reads are alive.
public struct RTPHeaderExtensionElementView {
    @inlinable
    init(id: UInt8, data: UnsafeRawBufferPointer, offset: Int) {
        self.id = id
        self.data = data
        self.offset = offset
    }

    /// The negotiated local identifier (1–14 one-byte, 1–255 two-byte).
    public let id: UInt8
    /// The element's data bytes, without the element header.
    public let data: UnsafeRawBufferPointer
    /// Byte offset of the element's data in the packet.
    public let offset: Int
}

/// The header extension elements of a packet, walked lazily with no allocation.
///
/// The walk stops where RFC 8285 says to (end of block, id 15) and skips padding bytes.
/// ``RTPPacketView`` has already validated every element's length, so iteration cannot fail.
public struct RTPHeaderExtensionElements: Sequence {
    // The walk not yet begun: the sequence is its first iterator.
    @usableFromInline let unstarted: Iterator

    @inlinable
    init(bytes: UnsafeRawBufferPointer, start: Int, end: Int, twoByte: Bool) {
        unstarted = Iterator(bytes: bytes, position: start, end: end, twoByte: twoByte)
    }

    /// Walks the block one element at a time.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let bytes: UnsafeRawBufferPointer
        @usableFromInline var position: Int
        @usableFromInline let end: Int
        @usableFromInline let twoByte: Bool

        @inlinable
        init(bytes: UnsafeRawBufferPointer, position: Int, end: Int, twoByte: Bool) {
            self.bytes = bytes
            self.position = position
            self.end = end
            self.twoByte = twoByte
        }

        @inlinable
        public mutating func next() -> RTPHeaderExtensionElementView? {
            while true {
                switch RTPExtensionStep.at(position, end: end, twoByte: twoByte, in: bytes) {
                case .element(let id, let start, let count, let next):
                    position = next
                    return RTPHeaderExtensionElementView(id: id, data: bytes.sub(start, count), offset: start)
                case .padding(let next):
                    position = next
                case .end, .truncated:
                    position = end
                    return nil
                }
            }
        }
    }

    @inlinable
    public func makeIterator() -> Iterator { unstarted }

    /// Whether there are no elements at all.
    @inlinable
    public var isEmpty: Bool {
        var iterator = makeIterator()
        return iterator.next() == nil
    }

    /// The first element with `id`, or nil.
    @inlinable
    public func first(id: UInt8) -> RTPHeaderExtensionElementView? {
        var iterator = makeIterator()
        while let element = iterator.next() {
            if element.id == id { return element }
        }
        return nil
    }
}
