// RFC 3550 §6.4.1: SR: Sender Report RTCP Packet.

/// A sender report: what an active sender has sent, when (NTP and RTP time of the same
/// instant, for lip sync and RTT), plus reception reports like an RR's.
public struct RTCPSenderReport: RTCPPacketContent {
    /// The sender.
    public var ssrc: UInt32
    /// Wall-clock time when the report was sent.
    public var ntpTime: NTPTime
    /// The same instant in the sender's RTP timestamp units.
    public var rtpTimestamp: UInt32
    /// Packets sent since starting transmission.
    public var packetCount: UInt32
    /// Payload octets sent since starting transmission (headers and padding excluded).
    public var octetCount: UInt32
    /// Reception reports, at most 31.
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the blocks (a multiple of 4), kept opaque.
    public var profileExtension: [UInt8]

    /// A report with every field given.
    public init(
        ssrc: UInt32, ntpTime: NTPTime, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
        reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTime = ntpTime
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    public var serializedSize: Int { ReceptionReports.size(senderInfo: 20, reportBlocks, profileExtension) }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = try ReceptionReports.write(packetType: RTCPPacketType.senderReport, ssrc: ssrc, senderInfo: 20,
                                              reportBlocks, profileExtension, into: buffer)
        buffer.put64(ntpTime.rawValue, at: 8)
        buffer.put32(rtpTimestamp, at: 16)
        buffer.put32(packetCount, at: 20)
        buffer.put32(octetCount, at: 24)
        return size
    }

    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        try packet.require(24, at: 0)
        let body = packet.body
        ssrc = body.u32(0)
        ntpTime = NTPTime(rawValue: body.u64(4))
        rtpTimestamp = body.u32(12)
        packetCount = body.u32(16)
        octetCount = body.u32(20)
        (reportBlocks, profileExtension) = try ReceptionReports.read(from: packet, senderInfo: 20)
    }
}

/// What an SR and an RR share: the reporter's SSRC first, then `senderInfo` bytes (20 in an
/// SR, none in an RR), then the report blocks and the opaque profile extension.
enum ReceptionReports {
    /// The packet size with `senderInfo` bytes, `blocks` and `profileExtension`.
    static func size(senderInfo: Int, _ blocks: [RTCPReportBlock], _ profileExtension: [UInt8]) -> Int {
        8 + senderInfo + RTCPReportBlock.size * blocks.count + profileExtension.count
    }

    /// Writes the header, `ssrc`, the blocks and the extension, leaving the sender info to the
    /// caller; returns the packet size.
    static func write(packetType: UInt8, ssrc: UInt32, senderInfo: Int, _ blocks: [RTCPReportBlock],
                      _ profileExtension: [UInt8], into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try checkWritable(blocks.count, profileExtension.count)
        let total = size(senderInfo: senderInfo, blocks, profileExtension)
        try buffer.putRTCPHeader(count: UInt8(blocks.count), packetType: packetType, size: total)
        buffer.put32(ssrc, at: 4)
        let position = RTCPReportBlock.writeBlocks(blocks, to: buffer, at: 8 + senderInfo)
        buffer.putBytes(profileExtension, at: position)
        return total
    }

    /// The blocks (as many as the header counts) and the extension after `senderInfo` bytes.
    static func read(from packet: RTCPPacketSlice, senderInfo: Int) throws(RTCPError)
        -> (blocks: [RTCPReportBlock], profileExtension: [UInt8]) {
        let blocks = try RTCPReportBlock.readBlocks(Int(packet.count), from: packet, at: 4 + senderInfo)
        return (blocks, wholeWords(of: packet.body, from: 4 + senderInfo + RTCPReportBlock.size * blocks.count))
    }
}

/// Throws unless `blocks` report blocks and an extension of `extensionSize` bytes fit an SR or RR.
func checkWritable(_ blocks: Int, _ extensionSize: Int) throws(RTCPError) {
    guard blocks <= 31 else { throw .notRepresentable("\(blocks) report blocks, at most 31 fit") }
    guard extensionSize % 4 == 0 else {
        throw .notRepresentable("profile extension of \(extensionSize) bytes is not a multiple of 4")
    }
}
