import ConferMedia

/// How many bits of picture id a VP8 or VP9 payload descriptor carries.
///
/// RFC 7741 §4.2 and RFC 9628 §4.2 lay the field out the same way — an M bit, then 7 or 15
/// bits of id — so both descriptors read and write it here.
public enum PictureIDLength: Hashable, Sendable {
    /// No picture id (I bit clear).
    case none
    /// A 7-bit picture id (M bit clear).
    case sevenBits
    /// A 15-bit picture id (M bit set).
    case fifteenBits

    /// Bytes the field takes in a descriptor.
    var encodedSize: Int {
        switch self {
        case .none: 0
        case .sevenBits: 1
        case .fifteenBits: 2
        }
    }

    /// Writes `id` at `offset` in `buffer` and moves `offset` past the field.
    func write(_ id: UInt16, to buffer: UnsafeMutableRawBufferPointer, at offset: inout Int) {
        switch self {
        case .none: break
        case .sevenBits:
            buffer[offset] = UInt8(id & 0x7F); offset += 1
        case .fifteenBits:
            buffer[offset] = 0x80 | UInt8((id >> 8) & 0x7F); buffer[offset + 1] = UInt8(id & 0xFF); offset += 2
        }
    }

    /// Reads the field at `offset` in `payload` (the I bit is known to be set) and moves
    /// `offset` past it; a truncated field is a ``PayloadError`` naming `field` and the offset.
    static func read(from payload: UnsafeRawBufferPointer, at offset: inout Int, codec: Codec,
                     field: String, extendedField: String) throws(PayloadError) -> (id: UInt16, length: PictureIDLength) {
        guard offset < payload.count else { throw PayloadError(.truncated, codec: codec, field: field, offset: offset) }
        let m = payload[offset]; offset += 1
        guard m & 0x80 != 0 else { return (UInt16(m), .sevenBits) }
        guard offset < payload.count else { throw PayloadError(.truncated, codec: codec, field: extendedField, offset: offset) }
        let id = UInt16(m & 0x7F) << 8 | UInt16(payload[offset]); offset += 1
        return (id, .fifteenBits)
    }
}
