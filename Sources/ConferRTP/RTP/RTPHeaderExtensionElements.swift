/// One RFC 8285 header extension element seen in place: its id and a view of its data.
///
/// Valid only while the bytes the enclosing ``RTPPacketView`` reads are alive.
public struct RTPHeaderExtensionElementView {
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
    let bytes: UnsafeRawBufferPointer
    let start: Int
    let end: Int
    let twoByte: Bool

    /// Walks the block one element at a time.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var position: Int
        let end: Int
        let twoByte: Bool

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

    public func makeIterator() -> Iterator {
        Iterator(bytes: bytes, position: start, end: end, twoByte: twoByte)
    }

    /// Whether there are no elements at all.
    public var isEmpty: Bool {
        var iterator = makeIterator()
        return iterator.next() == nil
    }

    /// The first element with `id`, or nil.
    @inline(__always)
    public func first(id: UInt8) -> RTPHeaderExtensionElementView? {
        var iterator = makeIterator()
        while let element = iterator.next() {
            if element.id == id { return element }
        }
        return nil
    }
}
