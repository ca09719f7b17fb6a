// RFC 4585 §6.3.1: Picture Loss Indication (PSFB, FMT 1).

/// A picture loss indication: the receiver lost picture data and asks for a key frame.
public struct RTCPPictureLossIndication: RTCPPacketContent {
    /// The feedback message type within PSFB.
    public static let format: UInt8 = 1

    /// The sender of this feedback.
    public var senderSSRC: UInt32
    /// The media source whose pictures were lost.
    public var mediaSSRC: UInt32

    /// A PLI from `senderSSRC` about `mediaSSRC`.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public var serializedSize: Int { 12 }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try buffer.putFeedbackHeader(format: Self.format, packetType: RTCPPacketType.payloadSpecificFeedback, size: 12,
                                     senderSSRC: senderSSRC, mediaSSRC: mediaSSRC)
        return 12
    }

    /// - Throws: ``RTCPError/badLength(packetType:offset:)`` unless the body is exactly
    ///   the two SSRCs (RFC 4585: "the length field MUST be 2").
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        guard body.count == 8 else { throw .badLength(packetType: packet.packetType, offset: packet.offset) }
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
    }
}
