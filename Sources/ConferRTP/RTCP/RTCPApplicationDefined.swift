// RFC 3550 §6.7: APP: Application-Defined RTCP Packet.

/// An application-defined packet: a 4-character name, a 5-bit subtype and opaque data.
public struct RTCPApplicationDefined: RTCPPacketContent {
    /// The 5-bit subtype (0–31).
    public var subtype: UInt8
    /// The sender.
    public var ssrc: UInt32
    /// The name, four ASCII characters packed big-endian.
    public var name: UInt32
    /// Application data, a multiple of 4 bytes.
    public var data: [UInt8]

    /// A packet with the given fields.
    public init(subtype: UInt8, ssrc: UInt32, name: UInt32, data: [UInt8] = []) {
        self.subtype = subtype
        self.ssrc = ssrc
        self.name = name
        self.data = data
    }

    /// A packet whose name is the first four bytes of `name` in UTF-8 (padded with spaces).
    public init(subtype: UInt8, ssrc: UInt32, name: String, data: [UInt8] = []) {
        var packed: UInt32 = 0
        let bytes = Array(name.utf8.prefix(4)) + Array(repeating: UInt8(ascii: " "), count: max(0, 4 - name.utf8.count))
        for byte in bytes { packed = packed << 8 | UInt32(byte) }
        self.init(subtype: subtype, ssrc: ssrc, name: packed, data: data)
    }

    /// The name as text.
    public var nameText: String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: name >> $0) }, as: UTF8.self)
    }

    public var serializedSize: Int { 12 + data.count }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        guard subtype <= 31 else { throw .notRepresentable("APP subtype \(subtype) is above 31") }
        guard data.count % 4 == 0 else { throw .notRepresentable("APP data of \(data.count) bytes is not a multiple of 4") }
        let size = serializedSize
        try buffer.putRTCPHeader(count: subtype, packetType: RTCPPacketType.applicationDefined, size: size)
        buffer.put32(ssrc, at: 4)
        buffer.put32(name, at: 8)
        buffer.putBytes(data, at: 12)
        return size
    }

    /// - Throws: ``RTCPError/badLength(packetType:offset:)`` when the application data
    ///   left after removing the padding is not whole 32-bit words: RFC 3550 §6.7 makes the
    ///   data a multiple of 32 bits, so padding that cuts into a word is malformed, and
    ///   shortening the data to fit would hand the application bytes it was not sent.
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        try packet.require(8, at: 0)
        let body = packet.body
        guard body.count % 4 == 0 else { throw .badLength(packetType: packet.packetType, offset: packet.offset) }
        subtype = packet.count
        ssrc = body.u32(0)
        name = body.u32(4)
        data = Array(body.sub(8, body.count - 8))
    }
}
