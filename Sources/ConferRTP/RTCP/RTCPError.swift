/// Why an RTCP compound packet could not be parsed or written.
///
/// Offsets are byte offsets from the start of the compound, so a bad packet deep inside
/// a compound is located exactly.
public enum RTCPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// There were no bytes at all.
    case empty
    /// Fewer than the 4 bytes of a common header remain at `offset`.
    case truncatedHeader(offset: Int)
    /// The packet at `offset` has a version other than 2.
    case badVersion(UInt8, offset: Int)
    /// The length field of the packet at `offset` declares `words` 32-bit words (header
    /// included), which run past the end of the compound.
    case lengthBeyondBuffer(words: Int, offset: Int)
    /// The P bit of a packet is set but its padding count (the byte at `offset`) is zero or
    /// larger than the packet's body.
    case badPadding(count: UInt8, offset: Int)
    /// A field of a packet of `packetType` at `offset` runs past the end of the packet
    /// (a count that promises more report blocks, chunks, items or deltas than there are).
    case truncatedPacket(packetType: UInt8, offset: Int)
    /// The packet of `packetType` at `offset` has a length its type does not allow (a PLI
    /// that is not 12 bytes, FIR entries that are not 8 bytes each, …).
    case badLength(packetType: UInt8, offset: Int)
    /// A feedback packet of `packetType` at `offset` carries no FCI entries, where its
    /// format requires at least one (a generic NACK, RFC 4585 §6.2.1; a FIR, RFC 5104 §4.3.1).
    case noEntries(packetType: UInt8, offset: Int)
    /// A transport-cc status chunk at `offset` uses the reserved status symbol 3.
    case reservedStatusSymbol(offset: Int)
    /// A REMB bitrate at `offset` does not fit in 64 bits.
    case bitrateOverflow(offset: Int)
    /// The destination buffer holds `available` bytes but `needed` are required.
    case bufferTooSmall(needed: Int, available: Int)
    /// A value cannot be written in its packet type (too many report blocks, an SDES text
    /// over 255 bytes, a transport-cc delta beyond ±8.19 s, …).
    case notRepresentable(String)

    /// The byte offset in the compound where the problem is, when it has one.
    public var offset: Int? {
        switch self {
        case .truncatedHeader(let offset), .badVersion(_, let offset), .lengthBeyondBuffer(_, let offset),
             .badPadding(_, let offset), .truncatedPacket(_, let offset), .badLength(_, let offset),
             .noEntries(_, let offset), .reservedStatusSymbol(let offset), .bitrateOverflow(let offset):
            offset
        case .empty, .bufferTooSmall, .notRepresentable: nil
        }
    }

    public var description: String {
        switch self {
        case .empty: "RTCP: empty compound packet"
        case .truncatedHeader(let offset): "RTCP: truncated common header at byte \(offset)"
        case .badVersion(let version, let offset): "RTCP: version \(version) at byte \(offset), expected 2"
        case .lengthBeyondBuffer(let words, let offset):
            "RTCP: packet at byte \(offset) claims \(words) words, past the end of the compound"
        case .badPadding(let count, let offset): "RTCP: bad padding count \(count) at byte \(offset)"
        case .truncatedPacket(let type, let offset): "RTCP: packet type \(type) truncated at byte \(offset)"
        case .badLength(let type, let offset): "RTCP: packet type \(type) at byte \(offset) has a length its type does not allow"
        case .noEntries(let type, let offset): "RTCP: feedback packet type \(type) at byte \(offset) has no entries"
        case .reservedStatusSymbol(let offset): "RTCP: transport-cc chunk at byte \(offset) uses reserved symbol 3"
        case .bitrateOverflow(let offset): "RTCP: REMB bitrate at byte \(offset) overflows 64 bits"
        case .bufferTooSmall(let needed, let available): "RTCP: buffer of \(available) bytes is too small, \(needed) needed"
        case .notRepresentable(let what): "RTCP: \(what)"
        }
    }
}
