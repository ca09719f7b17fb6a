// draft-alvestrand-rmcat-remb-03 §2.2: Receiver Estimated Maximum Bitrate
// (PSFB, FMT 15 "application layer feedback", identified by 'REMB').

/// The receiver's estimate of the total bitrate the listed streams may use.
public struct RTCPReceiverEstimatedMaxBitrate: RTCPPacketContent {
    /// The feedback message type within PSFB (application layer feedback).
    public static let format: UInt8 = 15
    /// The unique identifier 'R' 'E' 'M' 'B'.
    public static let identifier: UInt32 = 0x5245_4D42

    /// The sender of this feedback.
    public var senderSSRC: UInt32
    /// The estimate in bits per second. Written as an 18-bit mantissa and 6-bit exponent,
    /// so values above 2^18 lose their low bits (rounded down).
    public var bitrate: UInt64
    /// The streams the estimate applies to, at most 255.
    public var ssrcs: [UInt32]

    /// A REMB from `senderSSRC` for `ssrcs` at `bitrate` bits per second.
    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// The bitrate as the packet will carry it: mantissa and exponent.
    public var encodedBitrate: (exponent: UInt8, mantissa: UInt32) {
        var mantissa = bitrate
        var exponent: UInt8 = 0
        while mantissa > 0x3_FFFF {
            mantissa >>= 1
            exponent += 1
        }
        return (exponent, UInt32(mantissa))
    }

    public var serializedSize: Int { 20 + 4 * ssrcs.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard ssrcs.count <= 255 else { throw .notRepresentable("\(ssrcs.count) REMB SSRCs, at most 255 fit") }
        let size = serializedSize
        // The media source field is unused by REMB and must be 0.
        try buffer.putFeedbackHeader(format: Self.format, packetType: RTCPPacketType.payloadSpecificFeedback, size: size,
                                     senderSSRC: senderSSRC, mediaSSRC: 0)
        buffer.put32(Self.identifier, at: 12)
        let (exponent, mantissa) = encodedBitrate
        buffer[16] = UInt8(ssrcs.count)
        buffer.put24(UInt32(exponent) << 18 | mantissa, at: 17)
        var position = 20
        for ssrc in ssrcs {
            buffer.put32(ssrc, at: position)
            position += 4
        }
        return size
    }

    /// - Throws: ``RTCPError/truncatedPacket(packetType:offset:)`` when the SSRC list is
    ///   cut short, ``RTCPError/bitrateOverflow(offset:)`` when mantissa·2^exp needs more
    ///   than 64 bits.
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        try packet.require(16, at: 0)
        senderSSRC = body.u32(0)
        let count = Int(body[12])
        let exponent = UInt64(body[13] >> 2)
        let mantissa = UInt64(body.u24(13) & 0x3_FFFF)
        guard mantissa == 0 || exponent <= UInt64(mantissa.leadingZeroBitCount) else {
            throw .bitrateOverflow(offset: packet.bodyOffset + 13)
        }
        bitrate = mantissa << exponent
        try packet.require(4 * count, at: 16)
        ssrcs = (0 ..< count).map { body.u32(16 + 4 * $0) }
    }
}
