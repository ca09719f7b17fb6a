// RFC 7675's consent check, carried in SRTCP for media on plain UDP without ICE.

/// One half of a consent check: a challenge a side sends to an address it wants to send
/// media to, or the answer the side at that address sends back with the same nonce.
///
/// RFC 7675 runs its checks as STUN binding requests and responses, whose transaction ids
/// no one off the path can see. Here the check travels as an RTCP APP packet named
/// `CNST` (subtype 0 a challenge, 1 an answer, 16 bytes of nonce), after an empty receiver
/// report because RFC 3550 §6.1 starts every compound with one; SRTCP then protects it
/// with the sender's key. An answer that carries the nonce shows that whoever holds the
/// peer's key reads what is sent to that address, which a packet that only claims to come
/// from there (a forged source address) cannot show.
public struct RTCPConsentCheck: Hashable, Sendable {
    /// Which half of the check.
    public enum Kind: UInt8, Hashable, Sendable, Codable {
        /// Sent to an address that has not consented: "answer this if you want media".
        case challenge = 0
        /// Sent back from that address, repeating the challenge's nonce.
        case answer = 1
    }

    /// The APP packet's name.
    public static let name = "CNST"
    /// Which half of the check.
    public var kind: Kind
    /// The sender's SSRC (the report's and the APP packet's).
    public var ssrc: UInt32
    /// The challenge's unpredictable number, repeated by the answer.
    public var nonce: UInt128

    /// A check of `kind` from `ssrc` with `nonce`.
    public init(_ kind: Kind, ssrc: UInt32, nonce: UInt128) {
        self.kind = kind
        self.ssrc = ssrc
        self.nonce = nonce
    }

    /// The compound it travels as: an empty receiver report, then the APP packet.
    public var packets: [RTCPPacket] {
        var data = [UInt8](repeating: 0, count: 16)
        for index in 0 ..< 16 { data[index] = UInt8(truncatingIfNeeded: nonce >> (120 - 8 * index)) }
        return [
            .receiverReport(RTCPReceiverReport(ssrc: ssrc, reportBlocks: [])),
            .applicationDefined(RTCPApplicationDefined(subtype: kind.rawValue, ssrc: ssrc, name: Self.name, data: data)),
        ]
    }

    /// The check in `packets`, or nil when they hold none: no APP packet named ``name``
    /// with a known subtype and 16 bytes of data.
    public init?(_ packets: [RTCPPacket]) {
        let name = RTCPApplicationDefined(subtype: 0, ssrc: 0, name: Self.name).name
        for case .applicationDefined(let app) in packets where app.name == name && app.data.count == 16 {
            guard let kind = Kind(rawValue: app.subtype) else { continue }
            self.kind = kind
            ssrc = app.ssrc
            nonce = app.data.reduce(0) { $0 << 8 | UInt128($1) }
            return
        }
        return nil
    }
}
