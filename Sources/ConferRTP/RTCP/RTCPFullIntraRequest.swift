// RFC 5104 §4.3.1: Full Intra Request (PSFB, FMT 4).

/// A full intra request: the listed media senders should send a decoder refresh point.
public struct RTCPFullIntraRequest: RTCPPacketContent {
    /// The feedback message type within PSFB.
    public static let format: UInt8 = 4

    /// One FCI entry: whom the request is for, and its command sequence number.
    public struct Entry: Hashable, Sendable {
        /// The media sender asked for a refresh.
        public var ssrc: UInt32
        /// Incremented per new request, so a repeated request can be recognized.
        public var sequenceNumber: UInt8

        /// An entry for `ssrc` with `sequenceNumber`.
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    /// The sender of this feedback.
    public var senderSSRC: UInt32
    /// Unused by FIR and written as zero by RFC 5104, but kept as received.
    public var mediaSSRC: UInt32
    /// The requests.
    public var entries: [Entry]

    /// A FIR from `senderSSRC` with `entries`.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public var serializedSize: Int { 12 + 8 * entries.count }

    /// - Throws: ``RTCPError/notRepresentable(_:)`` for a FIR without entries, which
    ///   RFC 5104 §4.3.1.1 does not allow.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard !entries.isEmpty else { throw .notRepresentable("a FIR needs at least one entry") }
        return try buffer.putFeedbackEntries(entries, entrySize: 8, format: Self.format,
                                             packetType: RTCPPacketType.payloadSpecificFeedback,
                                             senderSSRC: senderSSRC, mediaSSRC: mediaSSRC) { entry, position in
            buffer.put32(entry.ssrc, at: position)
            // Seq nr., then 24 reserved bits that must be zero.
            buffer.put32(UInt32(entry.sequenceNumber) << 24, at: position + 4)
        }
    }

    /// - Throws: ``RTCPError/badLength(packetType:offset:)`` when the FCI is not a whole
    ///   number of 8-byte entries, and ``RTCPError/noEntries(packetType:offset:)`` when it
    ///   is empty (RFC 5104 §4.3.1.1 requires at least one entry).
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        entries = try packet.feedbackEntries(entrySize: 8) { Entry(ssrc: body.u32($0), sequenceNumber: body[$0 + 4]) }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
    }
}
