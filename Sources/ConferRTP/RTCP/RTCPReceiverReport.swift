// RFC 3550 §6.4.2: RR: Receiver Report RTCP Packet.

/// A receiver report: reception statistics from a participant that is not sending.
public struct RTCPReceiverReport: RTCPPacketContent {
    /// The reporter.
    public var ssrc: UInt32
    /// Reception reports, at most 31.
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the blocks (a multiple of 4), kept opaque.
    public var profileExtension: [UInt8]

    /// A report from `ssrc` with `reportBlocks`.
    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    public var serializedSize: Int { 8 + RTCPReportBlock.size * reportBlocks.count + profileExtension.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try checkWritable(reportBlocks.count, profileExtension.count)
        let size = serializedSize
        try buffer.putRTCPHeader(count: UInt8(reportBlocks.count), packetType: RTCPPacketType.receiverReport, size: size)
        buffer.put32(ssrc, at: 4)
        let position = RTCPReportBlock.writeBlocks(reportBlocks, to: buffer, at: 8)
        buffer.putBytes(profileExtension, at: position)
        return size
    }

    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        try packet.require(4, at: 0)
        let body = packet.body
        ssrc = body.u32(0)
        reportBlocks = try RTCPReportBlock.readBlocks(Int(packet.count), from: packet, at: 4)
        profileExtension = wholeWords(of: body, from: 4 + RTCPReportBlock.size * reportBlocks.count)
    }
}
