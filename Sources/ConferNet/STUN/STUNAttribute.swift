import Glibc

/// One STUN attribute (RFC 8489 §14): a 16-bit type and a value, padded to four bytes on
/// the wire. Types below 0x8000 are comprehension-required: a server that does not know one
/// in a request refuses it (420).
public struct STUNAttribute: Hashable, Sendable {
    /// The attribute's type.
    public var type: UInt16
    /// Its value, without padding.
    public var value: [UInt8]

    /// An attribute of `type` holding `value`.
    public init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    /// Whether a receiver that does not know the type must refuse the message.
    public var isComprehensionRequired: Bool { type < 0x8000 }

    /// MAPPED-ADDRESS: the reflexive address in the clear (RFC 3489 servers).
    public static let mappedAddress: UInt16 = 0x0001
    /// USERNAME.
    public static let username: UInt16 = 0x0006
    /// MESSAGE-INTEGRITY (HMAC-SHA1).
    public static let messageIntegrity: UInt16 = 0x0008
    /// ERROR-CODE.
    public static let errorCode: UInt16 = 0x0009
    /// UNKNOWN-ATTRIBUTES: the comprehension-required types a server did not know.
    public static let unknownAttributes: UInt16 = 0x000A
    /// REALM.
    public static let realm: UInt16 = 0x0014
    /// NONCE.
    public static let nonce: UInt16 = 0x0015
    /// MESSAGE-INTEGRITY-SHA256.
    public static let messageIntegritySHA256: UInt16 = 0x001C
    /// PASSWORD-ALGORITHM.
    public static let passwordAlgorithm: UInt16 = 0x001D
    /// USERHASH.
    public static let userhash: UInt16 = 0x001E
    /// XOR-MAPPED-ADDRESS: the reflexive address, XORed so NATs that rewrite addresses in
    /// payloads leave it alone.
    public static let xorMappedAddress: UInt16 = 0x0020
    /// PRIORITY (ICE, RFC 8445).
    public static let priority: UInt16 = 0x0024
    /// USE-CANDIDATE (ICE).
    public static let useCandidate: UInt16 = 0x0025
    /// SOFTWARE: the agent's name.
    public static let software: UInt16 = 0x8022
    /// FINGERPRINT: CRC-32 of the message, always last.
    public static let fingerprint: UInt16 = 0x8028

    /// The comprehension-required types a Binding server may meet and ignore: RFC 8489's
    /// own and ICE's connectivity checks' (a server without credentials ignores integrity).
    public static let understood: Set<UInt16> = [mappedAddress, username, messageIntegrity, errorCode, unknownAttributes, realm,
                                                 nonce, messageIntegritySHA256, passwordAlgorithm, userhash, xorMappedAddress,
                                                 priority, useCandidate]

    /// XOR-MAPPED-ADDRESS for `address` in a message with `transactionID`; nil when the host
    /// is not a numeric IPv4 or IPv6 address. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
    /// as a dual-stack socket reports IPv4 peers) is written as the IPv4 address it is.
    public static func xorMapped(_ address: UDPAddress, transactionID: [UInt8]) -> STUNAttribute? {
        guard let raw = addressBytes(address.host) else { return nil }
        return xorMapped(addressBytes: raw, port: address.port, transactionID: transactionID)
    }

    /// XOR-MAPPED-ADDRESS for the 4 or 16 bytes of an address (network order) and `port`, as
    /// a socket reports them: a server answers from those without writing the address as
    /// text and reading it back. IPv4-mapped IPv6 bytes are written as the IPv4 address;
    /// nil for another length or a port outside 0…65535.
    public static func xorMapped(addressBytes raw: [UInt8], port: Int, transactionID: [UInt8]) -> STUNAttribute? {
        let raw = unmapped(raw)
        guard raw.count == 4 || raw.count == 16, (0 ... 65535).contains(port),
              transactionID.count >= raw.count - 4 else { return nil }
        let xorPort = UInt16(port) ^ UInt16(STUNMessage.magicCookie >> 16)
        var value: [UInt8] = [0, raw.count == 4 ? 0x01 : 0x02, UInt8(xorPort >> 8), UInt8(xorPort & 0xFF)]
        value.reserveCapacity(4 + raw.count)
        // The mask is the magic cookie, then (for IPv6) the transaction id.
        for (index, byte) in raw.enumerated() {
            let mask = index < 4 ? UInt8(truncatingIfNeeded: STUNMessage.magicCookie >> (24 - 8 * index)) : transactionID[index - 4]
            value.append(byte ^ mask)
        }
        return STUNAttribute(type: xorMappedAddress, value: value)
    }

    /// The address in a MAPPED-ADDRESS or XOR-MAPPED-ADDRESS value (XOR undone with
    /// `transactionID` for the latter).
    public func address(transactionID: [UInt8]) throws(STUNError) -> UDPAddress {
        guard type == Self.xorMappedAddress || type == Self.mappedAddress else {
            throw STUNError(.badAddress, "STUN: attribute 0x\(String(type, radix: 16)) holds no address")
        }
        guard value.count >= 4 else { throw STUNError(.badAddress, "STUN: an address attribute of \(value.count) bytes") }
        let length: Int
        switch value[1] {
        case 0x01: length = 4
        case 0x02: length = 16
        default: throw STUNError(.badAddress, "STUN: unknown address family \(value[1])")
        }
        guard value.count == 4 + length else {
            throw STUNError(.badAddress, "STUN: an address of family \(value[1]) in \(value.count) bytes")
        }
        var port = UInt16(value[2]) << 8 | UInt16(value[3])
        var raw = Array(value[4...])
        if type == Self.xorMappedAddress {
            port ^= UInt16(STUNMessage.magicCookie >> 16)
            raw = zip(raw, STUNMessage.bigEndian(STUNMessage.magicCookie) + transactionID).map { $0 ^ $1 }
        }
        return UDPAddress(host: Self.text(of: raw), port: Int(port))
    }

    /// The 4 or 16 bytes of a numeric address; IPv4-mapped IPv6 gives the 4.
    static func addressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        return unmapped(withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// The IPv4 address inside IPv4-mapped IPv6 bytes (`::ffff:a.b.c.d`); other bytes as they are.
    static func unmapped(_ raw: [UInt8]) -> [UInt8] {
        guard raw.count == 16, raw[..<10].allSatisfy({ $0 == 0 }), raw[10] == 0xFF, raw[11] == 0xFF else { return raw }
        return Array(raw[12...])
    }

    /// The numeric text of 4 or 16 address bytes.
    static func text(of raw: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = raw.count == 4 ? AF_INET : AF_INET6
        let written = raw.withUnsafeBytes { source in
            inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
