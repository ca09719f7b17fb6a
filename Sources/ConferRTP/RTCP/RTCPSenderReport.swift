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

    public var serializedSize: Int { 28 + RTCPReportBlock.size * reportBlocks.count + profileExtension.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try checkWritable(reportBlocks.count, profileExtension.count)
        let size = serializedSize
        try buffer.putRTCPHeader(count: UInt8(reportBlocks.count), packetType: RTCPPacketType.senderReport, size: size)
        buffer.put32(ssrc, at: 4)
        buffer.put64(ntpTime.rawValue, at: 8)
        buffer.put32(rtpTimestamp, at: 16)
        buffer.put32(packetCount, at: 20)
        buffer.put32(octetCount, at: 24)
        let position = RTCPReportBlock.writeBlocks(reportBlocks, to: buffer, at: 28)
        buffer.putBytes(profileExtension, at: position)
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
        reportBlocks = try RTCPReportBlock.readBlocks(Int(packet.count), from: packet, at: 24)
        profileExtension = wholeWords(of: body, from: 24 + RTCPReportBlock.size * reportBlocks.count)
    }
}

/// Throws unless `blocks` report blocks and an extension of `extensionSize` bytes fit an SR or RR.
func checkWritable(_ blocks: Int, _ extensionSize: Int) throws(RTCPError) {
    guard blocks <= 31 else { throw .notRepresentable("\(blocks) report blocks, at most 31 fit") }
    guard extensionSize % 4 == 0 else {
        throw .notRepresentable("profile extension of \(extensionSize) bytes is not a multiple of 4")
    }
}
