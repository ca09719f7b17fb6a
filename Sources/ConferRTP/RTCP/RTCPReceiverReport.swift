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

    public var serializedSize: Int { ReceptionReports.size(senderInfo: 0, reportBlocks, profileExtension) }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try ReceptionReports.write(packetType: RTCPPacketType.receiverReport, ssrc: ssrc, senderInfo: 0,
                                   reportBlocks, profileExtension, into: buffer)
    }

    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        try packet.require(4, at: 0)
        ssrc = packet.body.u32(0)
        (reportBlocks, profileExtension) = try ReceptionReports.read(from: packet, senderInfo: 0)
    }
}
