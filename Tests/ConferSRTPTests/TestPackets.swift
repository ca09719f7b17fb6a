import ConferSRTP

/// SplitMix64, as ConferMedia's SeededRandom (which this test target cannot import).
struct TestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func bytes(_ count: Int) -> [UInt8] { (0 ..< count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// Packets built by hand, so the tests do not depend on ConferRTP.
enum TestPackets {
    /// A 12-byte RTP header (V=2, no padding, extension or CSRCs) followed by `payload`.
    static func rtp(sequence: UInt16, timestamp: UInt32 = 0, ssrc: UInt32 = 0x1234_5678, payloadType: UInt8 = 96, payload: [UInt8]) -> [UInt8] {
        var packet: [UInt8] = [0x80, payloadType & 0x7F]
        packet += bigEndian(sequence)
        packet += bigEndian(timestamp)
        packet += bigEndian(ssrc)
        return packet + payload
    }

    /// An RTCP receiver report (PT 201) with no report blocks: V=2, RC=0, length 1 (words − 1).
    static func receiverReport(ssrc: UInt32) -> [UInt8] {
        [0x80, 201, 0x00, 0x01] + bigEndian(ssrc)
    }

    /// An RTCP receiver report with one report block about `sourceSSRC` (32 bytes).
    static func receiverReport(ssrc: UInt32, about sourceSSRC: UInt32, highestSequence: UInt32) -> [UInt8] {
        var packet: [UInt8] = [0x81, 201, 0x00, 0x07]
        packet += bigEndian(ssrc)
        packet += bigEndian(sourceSSRC)
        packet += [0, 0, 0, 0]  // fraction lost, cumulative lost
        packet += bigEndian(highestSequence)
        packet += [UInt8](repeating: 0, count: 12)  // jitter, LSR, DLSR
        return packet
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0 ..< T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// A fixed key per profile and seed, so failures reproduce.
    static func key(_ profile: SRTPProfile, seed: UInt64 = 7) -> SRTPMasterKey {
        var random = TestRandom(seed: seed)
        return SRTPMasterKey.random(profile: profile, using: &random)
    }
}
