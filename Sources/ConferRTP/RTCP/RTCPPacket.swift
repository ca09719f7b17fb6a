/// One packet of a compound RTCP packet, decoded.
public enum RTCPPacket: Hashable, Sendable {
    /// SR (RFC 3550 §6.4.1).
    case senderReport(RTCPSenderReport)
    /// RR (RFC 3550 §6.4.2).
    case receiverReport(RTCPReceiverReport)
    /// SDES (RFC 3550 §6.5).
    case sourceDescription(RTCPSourceDescription)
    /// BYE (RFC 3550 §6.6).
    case bye(RTCPBye)
    /// APP (RFC 3550 §6.7).
    case applicationDefined(RTCPApplicationDefined)
    /// Generic NACK (RFC 4585 §6.2.1).
    case genericNACK(RTCPGenericNACK)
    /// Transport-wide congestion control feedback.
    case transportFeedback(RTCPTransportFeedback)
    /// PLI (RFC 4585 §6.3.1).
    case pictureLossIndication(RTCPPictureLossIndication)
    /// FIR (RFC 5104 §4.3.1).
    case fullIntraRequest(RTCPFullIntraRequest)
    /// REMB (draft-alvestrand-rmcat-remb).
    case receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate)
    /// XR (RFC 3611).
    case extendedReport(RTCPExtendedReport)
    /// A packet of a type (or feedback format) Confer does not decode: its packet type,
    /// its 5-bit count/FMT field, and its bytes, common header and padding included, which
    /// are written back unchanged.
    case raw(type: UInt8, fmt: UInt8, bytes: [UInt8])

    /// Decodes one packet found by an ``RTCPCompoundReader``; types and formats Confer does
    /// not know become ``raw(type:fmt:bytes:)``.
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let format = packet.count
        switch packet.packetType {
        case RTCPPacketType.senderReport:
            self = .senderReport(try RTCPSenderReport(parsing: packet))
        case RTCPPacketType.receiverReport:
            self = .receiverReport(try RTCPReceiverReport(parsing: packet))
        case RTCPPacketType.sourceDescription:
            self = .sourceDescription(try RTCPSourceDescription(parsing: packet))
        case RTCPPacketType.bye:
            self = .bye(try RTCPBye(parsing: packet))
        case RTCPPacketType.applicationDefined:
            self = .applicationDefined(try RTCPApplicationDefined(parsing: packet))
        case RTCPPacketType.extendedReport:
            self = .extendedReport(try RTCPExtendedReport(parsing: packet))
        case RTCPPacketType.transportLayerFeedback where format == RTCPGenericNACK.format:
            self = .genericNACK(try RTCPGenericNACK(parsing: packet))
        case RTCPPacketType.transportLayerFeedback where format == RTCPTransportFeedback.format:
            self = .transportFeedback(try RTCPTransportFeedback(parsing: packet))
        case RTCPPacketType.payloadSpecificFeedback where format == RTCPPictureLossIndication.format:
            self = .pictureLossIndication(try RTCPPictureLossIndication(parsing: packet))
        case RTCPPacketType.payloadSpecificFeedback where format == RTCPFullIntraRequest.format:
            self = .fullIntraRequest(try RTCPFullIntraRequest(parsing: packet))
        case RTCPPacketType.payloadSpecificFeedback
            where format == RTCPReceiverEstimatedMaxBitrate.format && packet.body.count >= 12
            && packet.body.u32(8) == RTCPReceiverEstimatedMaxBitrate.identifier:
            self = .receiverEstimatedMaxBitrate(try RTCPReceiverEstimatedMaxBitrate(parsing: packet))
        default:
            self = .raw(type: packet.packetType, fmt: format, bytes: Array(packet.bytes))
        }
    }

    /// Bytes the packet takes when written.
    public var serializedSize: Int {
        switch self {
        case .senderReport(let packet): packet.serializedSize
        case .receiverReport(let packet): packet.serializedSize
        case .sourceDescription(let packet): packet.serializedSize
        case .bye(let packet): packet.serializedSize
        case .applicationDefined(let packet): packet.serializedSize
        case .genericNACK(let packet): packet.serializedSize
        case .transportFeedback(let packet): packet.serializedSize
        case .pictureLossIndication(let packet): packet.serializedSize
        case .fullIntraRequest(let packet): packet.serializedSize
        case .receiverEstimatedMaxBitrate(let packet): packet.serializedSize
        case .extendedReport(let packet): packet.serializedSize
        case .raw(_, _, let bytes): bytes.count
        }
    }

    /// Writes the packet at the start of `buffer` without allocating.
    ///
    /// - Returns: the number of bytes written.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        switch self {
        case .senderReport(let packet): return try packet.serialize(into: buffer)
        case .receiverReport(let packet): return try packet.serialize(into: buffer)
        case .sourceDescription(let packet): return try packet.serialize(into: buffer)
        case .bye(let packet): return try packet.serialize(into: buffer)
        case .applicationDefined(let packet): return try packet.serialize(into: buffer)
        case .genericNACK(let packet): return try packet.serialize(into: buffer)
        case .transportFeedback(let packet): return try packet.serialize(into: buffer)
        case .pictureLossIndication(let packet): return try packet.serialize(into: buffer)
        case .fullIntraRequest(let packet): return try packet.serialize(into: buffer)
        case .receiverEstimatedMaxBitrate(let packet): return try packet.serialize(into: buffer)
        case .extendedReport(let packet): return try packet.serialize(into: buffer)
        case .raw(_, _, let bytes):
            // Written verbatim, so it must already be a well-formed packet of whole words.
            guard bytes.count >= 4, bytes.count % 4 == 0 else {
                throw .notRepresentable("raw RTCP packet of \(bytes.count) bytes is not whole 32-bit words")
            }
            guard bytes.count <= buffer.count else { throw .bufferTooSmall(needed: bytes.count, available: buffer.count) }
            buffer.putBytes(bytes, at: 0)
            return bytes.count
        }
    }
}

/// Reading and writing whole compound RTCP packets (RFC 3550 §6.1).
public enum RTCPCompound {
    /// Decodes every packet of the compound in `bytes`.
    ///
    /// Each common header's version and length are checked; unknown packet types and
    /// feedback formats become ``RTCPPacket/raw(type:fmt:bytes:)`` instead of failing the
    /// compound. SR or RR need not come first (RFC 5506 reduced-size RTCP).
    ///
    /// - Throws: ``RTCPError/empty`` for no bytes, or the first problem found, with its
    ///   offset in the compound.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> [RTCPPacket] {
        guard bytes.count > 0 else { throw .empty }
        var reader = RTCPCompoundReader(bytes)
        var packets: [RTCPPacket] = []
        while let slice = try reader.next() {
            packets.append(try RTCPPacket(parsing: slice))
        }
        return packets
    }

    /// Decodes every packet of the compound in `bytes` (see ``parse(_:)-(UnsafeRawBufferPointer)``).
    public static func parse(_ bytes: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        try withBytes(bytes) { (raw) throws(RTCPError) in try parse(raw) }
    }

    /// Bytes the compound of `packets` takes.
    public static func serializedSize(_ packets: [RTCPPacket]) -> Int {
        var size = 0
        for packet in packets { size += packet.serializedSize }
        return size
    }

    /// Writes `packets` back to back into `buffer` without allocating.
    ///
    /// - Returns: the number of bytes written.
    /// - Throws: ``RTCPError/bufferTooSmall(needed:available:)`` (for the whole compound)
    ///   or a packet's own error.
    public static func serialize(_ packets: [RTCPPacket], into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let total = serializedSize(packets)
        guard total <= buffer.count else { throw .bufferTooSmall(needed: total, available: buffer.count) }
        var position = 0
        for packet in packets {
            position += try packet.serialize(into: UnsafeMutableRawBufferPointer(rebasing: buffer[position...]))
        }
        return position
    }

    /// The compound of `packets`, in a new array.
    public static func serialized(_ packets: [RTCPPacket]) throws(RTCPError) -> [UInt8] {
        try makeBytes(size: serializedSize(packets)) { (buffer) throws(RTCPError) in try serialize(packets, into: buffer) }
    }
}
