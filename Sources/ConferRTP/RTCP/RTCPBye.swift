// RFC 3550 §6.6: BYE: Goodbye RTCP Packet.

/// A goodbye: the listed sources are leaving, optionally with a reason.
public struct RTCPBye: RTCPPacketContent {
    /// The sources leaving, at most 31.
    public var ssrcs: [UInt32]
    /// Why, as up to 255 bytes of UTF-8; nil when no reason is given.
    public var reason: [UInt8]?

    /// A goodbye from `ssrcs` with an optional `reason` text.
    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason.map { Array($0.utf8) }
    }

    /// The reason decoded as UTF-8, if one was given.
    public var reasonText: String? { reason.map { String(decoding: $0, as: UTF8.self) } }

    public var serializedSize: Int {
        4 + 4 * ssrcs.count + (reason.map { (1 + $0.count + 3) & ~3 } ?? 0)
    }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard ssrcs.count <= 31 else { throw .notRepresentable("\(ssrcs.count) BYE sources, at most 31 fit") }
        if let reason, reason.count > 255 { throw .notRepresentable("BYE reason of \(reason.count) bytes") }
        let size = serializedSize
        try buffer.putRTCPHeader(count: UInt8(ssrcs.count), packetType: RTCPPacketType.bye, size: size)
        var position = 4
        for ssrc in ssrcs {
            buffer.put32(ssrc, at: position)
            position += 4
        }
        if let reason {
            buffer[position] = UInt8(reason.count)
            buffer.putBytes(reason, at: position + 1)
            position += 1 + reason.count
            buffer.zero(position, size - position)
        }
        return size
    }

    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        let count = Int(packet.count)
        try packet.require(4 * count, at: 0)
        ssrcs = (0 ..< count).map { body.u32(4 * $0) }
        let position = 4 * count
        if position < body.count {
            let length = Int(body[position])
            try packet.require(1 + length, at: position)
            reason = Array(body.sub(position + 1, length))
        } else {
            reason = nil
        }
    }
}
