public import ConferMedia

/// A reception report block (RFC 3550 §6.4.1): one receiver's view of one source.
public struct RTCPReportBlock: Hashable, Sendable {
    /// Bytes a report block takes.
    public static let size = 24
    /// The largest cumulative loss the 24-bit signed field holds.
    public static let maxCumulativeLost: Int32 = 0x7F_FFFF
    /// The smallest cumulative loss the 24-bit signed field holds.
    public static let minCumulativeLost: Int32 = -0x80_0000

    /// The source this block reports on.
    public var ssrc: UInt32
    /// Packets lost since the previous report, as a fraction of 256 (A.3).
    public var fractionLost: UInt8
    /// Packets lost since reception began (expected − received); 24-bit signed, so values
    /// outside ``minCumulativeLost``…``maxCumulativeLost`` are clamped when written.
    public var cumulativeLost: Int32
    /// The highest sequence number received, extended with the count of wrap-arounds.
    public var extendedHighestSequenceNumber: UInt32
    /// The interarrival jitter estimate in timestamp units (A.8).
    public var jitter: UInt32
    /// LSR: the middle 32 bits of the NTP time of the last SR received from this source,
    /// or zero if none has been.
    public var lastSenderReport: CompactNTPTime
    /// DLSR: the delay between receiving that SR and sending this block, in 1/65536 s.
    public var delaySinceLastSenderReport: CompactNTPTime

    /// A block with every field given.
    public init(
        ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
        jitter: UInt32 = 0, lastSenderReport: CompactNTPTime = CompactNTPTime(rawValue: 0),
        delaySinceLastSenderReport: CompactNTPTime = CompactNTPTime(rawValue: 0)
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// The round-trip time this block reveals when it arrives at NTP time `now`
    /// (RFC 3550 §6.4.1: A − LSR − DLSR in compact NTP units), or nil when the receiver
    /// has not seen a sender report yet (LSR is zero).
    ///
    /// The arithmetic wraps like the 32-bit fields do; a result that comes out negative
    /// (unsynchronized or lying peers) is returned as is, for the caller to discard.
    public func roundTripTime(receivedAt now: NTPTime) -> TimeDelta? {
        CompactNTPTime.roundTrip(arrivingAt: now, sent: lastSenderReport, delay: delaySinceLastSenderReport)
    }

    init(reading bytes: UnsafeRawBufferPointer, at position: Int) {
        ssrc = bytes.u32(position)
        fractionLost = bytes[position + 4]
        // Sign-extend the 24-bit field.
        cumulativeLost = Int32(bitPattern: bytes.u24(position + 5) << 8) >> 8
        extendedHighestSequenceNumber = bytes.u32(position + 8)
        jitter = bytes.u32(position + 12)
        lastSenderReport = CompactNTPTime(rawValue: bytes.u32(position + 16))
        delaySinceLastSenderReport = CompactNTPTime(rawValue: bytes.u32(position + 20))
    }

    func write(to buffer: UnsafeMutableRawBufferPointer, at position: Int) {
        buffer.put32(ssrc, at: position)
        buffer[position + 4] = fractionLost
        let lost = min(max(cumulativeLost, Self.minCumulativeLost), Self.maxCumulativeLost)
        buffer.put24(UInt32(bitPattern: lost) & 0xFF_FFFF, at: position + 5)
        buffer.put32(extendedHighestSequenceNumber, at: position + 8)
        buffer.put32(jitter, at: position + 12)
        buffer.put32(lastSenderReport.rawValue, at: position + 16)
        buffer.put32(delaySinceLastSenderReport.rawValue, at: position + 20)
    }

    /// Reads `count` blocks from `position` in the body of `packet`.
    static func readBlocks(_ count: Int, from packet: RTCPPacketSlice, at position: Int) throws(RTCPError) -> [RTCPReportBlock] {
        let body = packet.body
        var blocks: [RTCPReportBlock] = []
        blocks.reserveCapacity(count)
        for index in 0 ..< count {
            // Checked block by block so the error points at the first missing one.
            try packet.require(size, at: position + index * size)
            blocks.append(RTCPReportBlock(reading: body, at: position + index * size))
        }
        return blocks
    }

    /// Writes `blocks` one after another from `position` in `buffer`; returns the position after them.
    static func writeBlocks(_ blocks: [RTCPReportBlock], to buffer: UnsafeMutableRawBufferPointer, at position: Int) -> Int {
        var position = position
        for block in blocks {
            block.write(to: buffer, at: position)
            position += size
        }
        return position
    }
}
