import ConferMedia

/// What the first bytes of an H.264 RTP payload say (RFC 6184 §5.2): its packet type and
/// the NAL units it carries.
public struct H264PayloadDescriptor: PayloadDescriptor, Hashable, Sendable {
    /// The RTP packet types Confer reads (packetization modes 0 and 1).
    public enum PacketType: Hashable, Sendable {
        /// One whole NAL unit (types 1–23).
        case singleNALUnit
        /// A single-time aggregation packet (type 24) of one or more NAL units.
        case stapA
        /// A fragment of one NAL unit (type 28).
        case fuA
    }

    /// The packet type.
    public var packetType: PacketType
    /// The type of the (first) NAL unit carried; for FU-A, the fragmented NAL unit's type.
    public var nalUnitType: UInt8
    /// NRI of the payload header (for STAP-A the highest of the NAL units').
    public var nalReferenceIndicator: UInt8
    /// How many NAL units (or fragments of one) the payload carries.
    public var nalUnitCount: Int
    /// FU-A S bit: the fragment starts its NAL unit (true for other packet types).
    public var startsNALUnit: Bool
    /// FU-A E bit: the fragment ends its NAL unit (true for other packet types).
    public var endsNALUnit: Bool
    /// Whether an IDR slice (5) or an SPS (7) is among the NAL units: a decoder can start here.
    public var containsKeyframeNALUnit: Bool
    /// Whether the payload certainly starts an access unit: its first NAL unit is an SEI,
    /// SPS, PPS or access unit delimiter, or a slice whose first_mb_in_slice is 0.
    public var startsAccessUnit: Bool
    /// The bytes after the payload header: the whole NAL unit for a single NAL unit packet,
    /// the aggregation units for STAP-A, the fragment for FU-A.
    public var bitstream: Range<Int>

    /// NAL unit types that come only before an access unit's first slice (H.264 §7.4.1.2.3).
    static func startsAccessUnit(type: UInt8, firstPayloadByte: UInt8?) -> Bool {
        switch type {
        case 6, 7, 8, 9: return true
        // first_mb_in_slice is ue(v) coded: a leading 1 bit means 0, the picture's first slice.
        case 1, 5: return (firstPayloadByte ?? 0) & 0x80 != 0
        default: return false
        }
    }

    private static func isKeyframeType(_ type: UInt8) -> Bool { type == 5 || type == 7 }

    /// Reads and checks the payload header, every STAP-A aggregation unit, or the FU header.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> H264PayloadDescriptor {
        guard payload.count >= 1 else { throw PayloadError(.truncated, codec: .h264, field: "NAL unit header", offset: 0) }
        let header = payload[0]
        let type = header & 0x1F
        let nri = (header >> 5) & 0x03
        switch type {
        case 1...23:
            return H264PayloadDescriptor(
                packetType: .singleNALUnit, nalUnitType: type, nalReferenceIndicator: nri, nalUnitCount: 1,
                startsNALUnit: true, endsNALUnit: true, containsKeyframeNALUnit: isKeyframeType(type),
                startsAccessUnit: startsAccessUnit(type: type, firstPayloadByte: payload.count > 1 ? payload[1] : nil),
                bitstream: 0..<payload.count)
        case 24:
            var at = 1, count = 0, keyframe = false, firstType: UInt8 = 0, startsAU = false, highestNRI: UInt8 = 0
            repeat {
                guard at + 2 <= payload.count else {
                    throw PayloadError(.truncated, codec: .h264, field: "STAP-A NALU size", offset: at)
                }
                let size = Int(payload[at]) << 8 | Int(payload[at + 1])
                guard size > 0 else { throw PayloadError(.invalid, codec: .h264, field: "STAP-A NALU size (zero)", offset: at) }
                guard at + 2 + size <= payload.count else {
                    throw PayloadError(.truncated, codec: .h264, field: "STAP-A NAL unit (size beyond payload)", offset: at)
                }
                let inner = payload[at + 2]
                let innerType = inner & 0x1F
                guard innerType >= 1 && innerType <= 23 else {
                    throw PayloadError(.invalid, codec: .h264, field: "STAP-A NAL unit type", offset: at + 2)
                }
                if count == 0 {
                    firstType = innerType
                    startsAU = startsAccessUnit(type: innerType, firstPayloadByte: size > 1 ? payload[at + 3] : nil)
                }
                keyframe = keyframe || isKeyframeType(innerType)
                highestNRI = max(highestNRI, (inner >> 5) & 0x03)
                count += 1
                at += 2 + size
            } while at < payload.count
            return H264PayloadDescriptor(
                packetType: .stapA, nalUnitType: firstType, nalReferenceIndicator: max(nri, highestNRI),
                nalUnitCount: count, startsNALUnit: true, endsNALUnit: true, containsKeyframeNALUnit: keyframe,
                startsAccessUnit: startsAU, bitstream: 1..<payload.count)
        case 28:
            guard payload.count >= 2 else { throw PayloadError(.truncated, codec: .h264, field: "FU header", offset: 1) }
            let fu = payload[1]
            let start = fu & 0x80 != 0, end = fu & 0x40 != 0
            let fuType = fu & 0x1F
            guard !(start && end) else {
                throw PayloadError(.invalid, codec: .h264, field: "FU header (S and E both set)", offset: 1)
            }
            guard fuType >= 1 && fuType <= 23 else {
                throw PayloadError(.invalid, codec: .h264, field: "FU header type", offset: 1)
            }
            guard payload.count >= 3 else { throw PayloadError(.truncated, codec: .h264, field: "FU payload", offset: 2) }
            return H264PayloadDescriptor(
                packetType: .fuA, nalUnitType: fuType, nalReferenceIndicator: nri, nalUnitCount: 1,
                startsNALUnit: start, endsNALUnit: end, containsKeyframeNALUnit: isKeyframeType(fuType),
                startsAccessUnit: start && startsAccessUnit(type: fuType, firstPayloadByte: payload[2]),
                bitstream: 2..<payload.count)
        case 25:
            throw PayloadError(.unsupported, codec: .h264, field: "packet type 25 (STAP-B)", offset: 0)
        case 26:
            throw PayloadError(.unsupported, codec: .h264, field: "packet type 26 (MTAP16)", offset: 0)
        case 27:
            throw PayloadError(.unsupported, codec: .h264, field: "packet type 27 (MTAP24)", offset: 0)
        case 29:
            throw PayloadError(.unsupported, codec: .h264, field: "packet type 29 (FU-B)", offset: 0)
        default:
            throw PayloadError(.invalid, codec: .h264, field: "NAL unit type (0, 30 and 31 are reserved)", offset: 0)
        }
    }
}
