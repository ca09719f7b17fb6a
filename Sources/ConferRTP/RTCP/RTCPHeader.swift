/// RTCP packet type numbers (RFC 3550 §12.1, RFC 4585 §6.1).
public enum RTCPPacketType {
    /// SR, RFC 3550 §6.4.1.
    public static let senderReport: UInt8 = 200
    /// RR, RFC 3550 §6.4.2.
    public static let receiverReport: UInt8 = 201
    /// SDES, RFC 3550 §6.5.
    public static let sourceDescription: UInt8 = 202
    /// BYE, RFC 3550 §6.6.
    public static let bye: UInt8 = 203
    /// APP, RFC 3550 §6.7.
    public static let applicationDefined: UInt8 = 204
    /// RTPFB: transport-layer feedback, RFC 4585 §6.2.
    public static let transportLayerFeedback: UInt8 = 205
    /// PSFB: payload-specific feedback, RFC 4585 §6.3.
    public static let payloadSpecificFeedback: UInt8 = 206
    /// XR: extended reports, RFC 3611.
    public static let extendedReport: UInt8 = 207
}

/// One packet of a compound, located but not yet decoded: its common header fields and
/// its bytes, read in place (valid while the compound's bytes are).
public struct RTCPPacketSlice {
    /// Where the packet starts in the compound.
    public let offset: Int
    /// The whole packet: common header, body and padding.
    public let bytes: UnsafeRawBufferPointer
    /// The 5-bit field after the P bit: a count (RC, SC) or, for feedback, the FMT.
    public let count: UInt8
    /// The packet type.
    public let packetType: UInt8
    /// Bytes of padding at the end (count byte included); zero without the P bit.
    public let paddingSize: Int

    /// The bytes after the 4-byte common header, without padding.
    public var body: UnsafeRawBufferPointer { bytes.sub(4, bytes.count - 4 - paddingSize) }
    /// Where ``body`` starts in the compound.
    public var bodyOffset: Int { offset + 4 }
}

/// Walks the packets of a compound RTCP packet (RFC 3550 §6.1) in place, validating each
/// common header (version, length, padding) and allocating nothing.
///
/// It does not insist that the compound start with SR or RR, so reduced-size RTCP
/// (RFC 5506: a lone feedback packet) reads like any other compound.
public struct RTCPCompoundReader {
    /// The compound being read.
    public let bytes: UnsafeRawBufferPointer
    /// Where the next packet starts.
    public private(set) var offset = 0

    /// A reader at the start of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next packet, or nil at the end.
    ///
    /// - Throws: ``RTCPError/truncatedHeader(offset:)``, ``RTCPError/badVersion(_:offset:)``,
    ///   ``RTCPError/lengthBeyondBuffer(words:offset:)`` or ``RTCPError/badPadding(count:offset:)``.
    public mutating func next() throws(RTCPError) -> RTCPPacketSlice? {
        let start = offset
        guard start < bytes.count else { return nil }
        guard bytes.count - start >= 4 else { throw .truncatedHeader(offset: start) }
        let first = bytes[start]
        guard first >> 6 == 2 else { throw .badVersion(first >> 6, offset: start) }
        let words = Int(bytes.u16(start + 2)) + 1
        let size = 4 * words
        guard size <= bytes.count - start else { throw .lengthBeyondBuffer(words: words, offset: start) }
        var paddingSize = 0
        if first & 0x20 != 0 {
            let count = bytes[start + size - 1]
            guard count != 0, Int(count) <= size - 4 else {
                throw .badPadding(count: count, offset: start + size - 1)
            }
            paddingSize = Int(count)
        }
        offset = start + size
        return RTCPPacketSlice(
            offset: start, bytes: bytes.sub(start, size), count: first & 0x1F,
            packetType: bytes[start + 1], paddingSize: paddingSize)
    }
}

/// The serialization every RTCP packet type offers.
public protocol RTCPPacketContent: Hashable, Sendable {
    /// Bytes the packet takes when written, common header included.
    var serializedSize: Int { get }
    /// Writes the packet, common header included, at the start of `buffer` without allocating.
    ///
    /// - Returns: the number of bytes written (``serializedSize``).
    func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int
    /// Decodes a packet the ``RTCPCompoundReader`` found.
    init(parsing packet: RTCPPacketSlice) throws(RTCPError)
}

extension RTCPPacketContent {
    /// The packet's bytes, in a new array.
    public func serialized() throws(RTCPError) -> [UInt8] {
        try makeBytes(size: serializedSize) { (buffer) throws(RTCPError) in try serialize(into: buffer) }
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Checks that `size` bytes fit, then writes an RTCP common header for a packet of
    /// `size` bytes (a multiple of 4, padding included).
    func putRTCPHeader(count: UInt8, packetType: UInt8, size: Int, padding: Bool = false) throws(RTCPError) {
        guard size <= self.count else { throw .bufferTooSmall(needed: size, available: self.count) }
        guard size <= 4 * 65536 else { throw .notRepresentable("packet of \(size) bytes exceeds the 16-bit length field") }
        self[0] = 0x80 | (padding ? 0x20 : 0) | (count & 0x1F)
        self[1] = packetType
        put16(UInt16(size / 4 - 1), at: 2)
    }

    /// Checks that `size` bytes fit, then writes the opening every RTPFB and PSFB message
    /// shares (RFC 4585 §6.1): the common header with the feedback `format` as its count,
    /// the feedback's sender and the media source it is about.
    func putFeedbackHeader(format: UInt8, packetType: UInt8, size: Int, padding: Bool = false,
                           senderSSRC: UInt32, mediaSSRC: UInt32) throws(RTCPError) {
        try putRTCPHeader(count: format, packetType: packetType, size: size, padding: padding)
        put32(senderSSRC, at: 4)
        put32(mediaSSRC, at: 8)
    }

    /// Writes a feedback message whose FCI is a list of `entrySize`-byte entries (generic
    /// NACK, FIR): the feedback header, then each entry by `put` at its offset. Returns the
    /// message's size.
    func putFeedbackEntries<Entry>(_ entries: [Entry], entrySize: Int, format: UInt8, packetType: UInt8,
                                   senderSSRC: UInt32, mediaSSRC: UInt32,
                                   put: (Entry, _ position: Int) -> Void) throws(RTCPError) -> Int {
        let size = 12 + entrySize * entries.count
        try putFeedbackHeader(format: format, packetType: packetType, size: size, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC)
        for (index, entry) in entries.enumerated() { put(entry, 12 + entrySize * index) }
        return size
    }
}

extension RTCPPacketSlice {
    /// Throws ``RTCPError/truncatedPacket(packetType:offset:)`` unless the body holds
    /// `needed` bytes from `position` (a body offset).
    func require(_ needed: Int, at position: Int) throws(RTCPError) {
        guard position + needed <= body.count else {
            throw .truncatedPacket(packetType: packetType, offset: bodyOffset + position)
        }
    }

    /// The FCI entries of a feedback message made of `entrySize`-byte entries (generic NACK,
    /// FIR), each read by `read` at its body offset. Both RFCs require at least one entry.
    ///
    /// - Throws: ``RTCPError/badLength(packetType:offset:)`` when the FCI is not whole
    ///   entries, ``RTCPError/noEntries(packetType:offset:)`` when it is empty.
    func feedbackEntries<Entry>(entrySize: Int, read: (_ position: Int) -> Entry) throws(RTCPError) -> [Entry] {
        try require(8, at: 0)
        let fciSize = body.count - 8
        guard fciSize % entrySize == 0 else { throw .badLength(packetType: packetType, offset: offset) }
        guard fciSize > 0 else { throw .noEntries(packetType: packetType, offset: offset) }
        return (0 ..< fciSize / entrySize).map { read(8 + entrySize * $0) }
    }
}

/// The bytes of `body` from `position`, cut to whole 32-bit words. A body only ends
/// mid-word when the padding count is not a multiple of 4 (libwebrtc's transport-cc does
/// that); for the types whose trailing data is word-structured, such stray bytes are dropped.
func wholeWords(of body: UnsafeRawBufferPointer, from position: Int) -> [UInt8] {
    let count = max(body.count - position, 0) & ~3
    return Array(body.sub(position, count))
}
