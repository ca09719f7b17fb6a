/// What a member needs to exchange media with the host: its slot (which fixes its SSRCs
/// and its place in the layout) and one SRTP master key per direction, made by the server
/// when the member is admitted and handed only to that member and the host.
public struct MediaGrant: Sendable, Codable, Hashable {
    /// The member's slot in the room, from 1; the host is slot 0.
    public var slot: UInt32
    /// The SRTP master key and salt (30 bytes, AES_CM_128_HMAC_SHA1_80) for what the member
    /// sends to the host.
    public var uplinkKey: [UInt8]
    /// The SRTP master key and salt for what the host sends to the member.
    public var downlinkKey: [UInt8]

    /// Bytes in one master key and salt.
    public static let keyLength = 30

    /// A grant with keys drawn from `generator`.
    public init<G: RandomNumberGenerator>(slot: UInt32, using generator: inout G) {
        self.slot = slot
        uplinkKey = (0 ..< Self.keyLength).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        downlinkKey = (0 ..< Self.keyLength).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
    }

    /// A grant with the given keys.
    public init(slot: UInt32, uplinkKey: [UInt8], downlinkKey: [UInt8]) {
        self.slot = slot
        self.uplinkKey = uplinkKey
        self.downlinkKey = downlinkKey
    }
}
