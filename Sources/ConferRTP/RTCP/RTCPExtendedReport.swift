public import ConferMedia

// RFC 3611: RTCP Extended Reports (XR), packet type 207.

/// An extended report: the sender's SSRC and report blocks. Confer reads and writes the two
/// that give a receive-only endpoint its round-trip time — the receiver reference time
/// (RRTR, §4.4) it sends, and the delay since last receiver report (DLRR, §4.5) the media
/// sender answers with; other block types are kept as their bytes.
public struct RTCPExtendedReport: RTCPPacketContent {
    /// One DLRR sub-block: about the RRTR `ssrc` sent last.
    public struct DelaySinceLastReceiverReport: Hashable, Sendable {
        /// The receiver the sub-block answers.
        public var ssrc: UInt32
        /// The middle 32 bits of that receiver's last RRTR timestamp (LRR).
        public var lastReceiverReport: CompactNTPTime
        /// Time from receiving that RRTR to sending this, in 1/65536 s (DLRR).
        public var delay: CompactNTPTime

        /// A sub-block for `ssrc`.
        public init(ssrc: UInt32, lastReceiverReport: CompactNTPTime, delay: CompactNTPTime) {
            self.ssrc = ssrc
            self.lastReceiverReport = lastReceiverReport
            self.delay = delay
        }

        /// The round-trip time it gives a receiver reading it at `now` (nil without an LRR).
        public func roundTripTime(receivedAt now: NTPTime) -> TimeDelta? {
            CompactNTPTime.roundTrip(arrivingAt: now, sent: lastReceiverReport, delay: delay)
        }
    }

    /// One report block.
    public enum Block: Hashable, Sendable {
        /// Receiver reference time (BT 4).
        case receiverReferenceTime(NTPTime)
        /// Delay since last receiver report (BT 5), one sub-block per receiver.
        case delaySinceLastReceiverReport([DelaySinceLastReceiverReport])
        /// Another block type: its type, its type-specific byte and its contents after the
        /// block header.
        case other(type: UInt8, typeSpecific: UInt8, contents: [UInt8])
    }

    /// The packet type.
    public static let packetType: UInt8 = 207
    /// The receiver reference time block type.
    public static let rrtrBlockType: UInt8 = 4
    /// The DLRR block type.
    public static let dlrrBlockType: UInt8 = 5

    /// Who sends the report.
    public var ssrc: UInt32
    /// The report blocks, in order.
    public var blocks: [Block]

    /// A report from `ssrc` with `blocks`.
    public init(ssrc: UInt32, blocks: [Block]) {
        self.ssrc = ssrc
        self.blocks = blocks
    }

    private static func contentSize(_ block: Block) -> Int {
        switch block {
        case .receiverReferenceTime: 8
        case .delaySinceLastReceiverReport(let entries): 12 * entries.count
        case .other(_, _, let contents): (contents.count + 3) & ~3
        }
    }

    public var serializedSize: Int { 8 + blocks.reduce(0) { $0 + 4 + Self.contentSize($1) } }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = serializedSize
        for block in blocks where Self.contentSize(block) / 4 > 0xFFFF {
            throw .notRepresentable("an XR block of \(Self.contentSize(block)) bytes")
        }
        try buffer.putRTCPHeader(count: 0, packetType: Self.packetType, size: size)
        buffer.put32(ssrc, at: 4)
        var position = 8
        for block in blocks {
            let length = Self.contentSize(block)
            buffer.put16(UInt16(length / 4), at: position + 2)
            switch block {
            case .receiverReferenceTime(let time):
                buffer[position] = Self.rrtrBlockType
                buffer[position + 1] = 0
                buffer.put32(time.seconds, at: position + 4)
                buffer.put32(time.fraction, at: position + 8)
            case .delaySinceLastReceiverReport(let entries):
                buffer[position] = Self.dlrrBlockType
                buffer[position + 1] = 0
                for (index, entry) in entries.enumerated() {
                    let at = position + 4 + 12 * index
                    buffer.put32(entry.ssrc, at: at)
                    buffer.put32(entry.lastReceiverReport.rawValue, at: at + 4)
                    buffer.put32(entry.delay.rawValue, at: at + 8)
                }
            case .other(let type, let typeSpecific, let contents):
                buffer[position] = type
                buffer[position + 1] = typeSpecific
                buffer.putBytes(contents, at: position + 4)
                buffer.zero(position + 4 + contents.count, length - contents.count)
            }
            position += 4 + length
        }
        return size
    }

    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        try packet.require(4, at: 0)
        ssrc = body.u32(0)
        var blocks: [Block] = []
        var position = 4
        while position < body.count {
            try packet.require(4, at: position)
            let type = body[position], typeSpecific = body[position + 1]
            let length = 4 * Int(body.u16(position + 2))
            try packet.require(4 + length, at: position)
            let contents = position + 4
            switch type {
            case Self.rrtrBlockType where length == 8:
                blocks.append(.receiverReferenceTime(NTPTime(seconds: body.u32(contents), fraction: body.u32(contents + 4))))
            case Self.dlrrBlockType where length % 12 == 0:
                blocks.append(.delaySinceLastReceiverReport((0 ..< length / 12).map { index in
                    let at = contents + 12 * index
                    return DelaySinceLastReceiverReport(ssrc: body.u32(at), lastReceiverReport: CompactNTPTime(rawValue: body.u32(at + 4)),
                                                        delay: CompactNTPTime(rawValue: body.u32(at + 8)))
                }))
            default:
                blocks.append(.other(type: type, typeSpecific: typeSpecific, contents: Array(body.sub(contents, length))))
            }
            position = contents + length
        }
        self.blocks = blocks
    }
}
