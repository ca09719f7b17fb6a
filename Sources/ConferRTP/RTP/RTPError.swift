/// Why an RTP packet could not be parsed or written.
///
/// Every case names the field that was wrong and where it is, so a dropped packet can be
/// counted and explained. Offsets are byte offsets from the first byte of the packet.
public enum RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The packet is shorter than the 12-byte fixed header; `length` is how long it was.
    case truncatedHeader(length: Int)
    /// The version field (top two bits of byte 0) is not 2.
    case badVersion(UInt8)
    /// The CSRC count (byte 0) lists `count` CSRCs, but the packet of `length` bytes
    /// ends inside the list, which starts at byte 12.
    case csrcListTruncated(count: Int, length: Int)
    /// The X bit is set but the packet ends before the 4-byte extension header at `offset`.
    case extensionHeaderTruncated(offset: Int)
    /// The extension header at `offset` declares `words` 32-bit words, which run past the
    /// end of the packet.
    case extensionLengthBeyondPacket(words: Int, offset: Int)
    /// The RFC 8285 element with `id` at `offset` declares `length` data bytes, which run
    /// past the end of the extension block (`length` is -1 when even the two-byte form's
    /// length byte is missing).
    case extensionElementTruncated(id: UInt8, length: Int, offset: Int)
    /// The P bit is set but the padding count in the last byte (at `offset`) is zero or
    /// larger than the bytes that follow the header.
    case badPadding(count: UInt8, offset: Int)
    /// The destination buffer holds `available` bytes but `needed` are required.
    case bufferTooSmall(needed: Int, available: Int)
    /// An extension element with `id` and `length` data bytes cannot be written in the
    /// chosen form (one-byte: ids 1–14, 1–16 bytes; two-byte: ids 1–255, 0–255 bytes).
    case extensionNotRepresentable(id: UInt8, length: Int)
    /// The element with `id` at `offset` has `length` bytes, which is not the size its
    /// negotiated type (audio level, abs-send-time, …) requires.
    case badExtensionValue(id: UInt8, length: Int, offset: Int)
    /// An extension id outside 1–255, or already mapped to another URI.
    case invalidExtensionID(UInt8)
    /// A padding length outside 0–255, a payload type above 127 or more than 15 CSRCs.
    case fieldOutOfRange(String)

    /// The byte offset in the packet where the problem is, when it has one.
    public var offset: Int? {
        switch self {
        case .truncatedHeader(let length): length
        case .badVersion: 0
        case .csrcListTruncated(_, let length): length
        case .extensionHeaderTruncated(let offset),
             .extensionLengthBeyondPacket(_, let offset),
             .extensionElementTruncated(_, _, let offset),
             .badPadding(_, let offset),
             .badExtensionValue(_, _, let offset):
            offset
        case .bufferTooSmall, .extensionNotRepresentable, .invalidExtensionID, .fieldOutOfRange: nil
        }
    }

    public var description: String {
        switch self {
        case .truncatedHeader(let length):
            "RTP: \(length) bytes is shorter than the 12-byte fixed header"
        case .badVersion(let version):
            "RTP: version \(version) at byte 0, expected 2"
        case .csrcListTruncated(let count, let length):
            "RTP: \(count) CSRCs from byte 12 do not fit in \(length) bytes"
        case .extensionHeaderTruncated(let offset):
            "RTP: extension header at byte \(offset) is truncated"
        case .extensionLengthBeyondPacket(let words, let offset):
            "RTP: extension of \(words) words at byte \(offset) runs past the packet"
        case .extensionElementTruncated(let id, let length, let offset):
            "RTP: extension element id \(id) of \(length) bytes at byte \(offset) runs past the extension block"
        case .badPadding(let count, let offset):
            "RTP: padding count \(count) at byte \(offset) is zero or larger than the payload"
        case .bufferTooSmall(let needed, let available):
            "RTP: buffer of \(available) bytes is too small, \(needed) needed"
        case .extensionNotRepresentable(let id, let length):
            "RTP: extension id \(id) with \(length) bytes cannot be written in this form"
        case .badExtensionValue(let id, let length, let offset):
            "RTP: extension id \(id) at byte \(offset) has \(length) bytes, wrong for its type"
        case .invalidExtensionID(let id):
            "RTP: extension id \(id) is out of range or already in use"
        case .fieldOutOfRange(let what):
            "RTP: \(what)"
        }
    }
}
