internal import CZlib
public import ConferMedia

/// A STUN message (RFC 8489 §5): a 20-byte header — type, length, magic cookie, 96-bit
/// transaction id — and attributes, each padded to four bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// |0 0|     STUN Message Type     |         Message Length        |
/// |                         Magic Cookie                          |
/// |                     Transaction ID (96 bits)                  |
/// ```
///
/// Confer speaks the Binding method only: a device asks the server, from its media socket,
/// which address its datagrams arrive from (its server-reflexive address), so it can announce
/// the address a NAT maps it to. Every attribute but FINGERPRINT is kept as read, so what is
/// parsed writes back the same (``encoded()``, padding aside); FINGERPRINT is checked when
/// reading (``fingerprinted``) and computed anew, last, when writing.
public struct STUNMessage: Hashable, Sendable {
    /// The fixed value in every STUN message since RFC 5389.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The header's size in bytes.
    public static let headerBytes = 20
    /// The Binding method, the only one Confer answers.
    public static let bindingMethod: UInt16 = 0x001
    /// FINGERPRINT's CRC is XORed with this ("STUN"), so it differs from other protocols' CRCs.
    static let fingerprintXOR: UInt32 = 0x5354_554E

    /// A message's class: the two bits beside its method.
    public enum Class: UInt8, Hashable, Sendable {
        /// Asks for a response.
        case request = 0
        /// Expects none.
        case indication = 1
        /// The request succeeded.
        case successResponse = 2
        /// The request failed; ERROR-CODE says why.
        case errorResponse = 3
    }

    /// The method (12 bits): ``bindingMethod`` for Binding.
    public var method: UInt16
    /// Request, indication or response.
    public var messageClass: Class
    /// Twelve bytes, random in a request and repeated in its response.
    public var transactionID: [UInt8]
    /// The attributes in order, without FINGERPRINT.
    public var attributes: [STUNAttribute]
    /// Whether the message ends with FINGERPRINT: read with one that matched, or to be
    /// written with one.
    public var fingerprinted: Bool

    /// A message of `method` and `messageClass` with `attributes` (FINGERPRINT among them is
    /// left out: `fingerprinted` says whether one is written); `transactionID` must hold
    /// twelve bytes (more are cut, fewer padded with zeros).
    public init(method: UInt16 = STUNMessage.bindingMethod, class messageClass: Class, transactionID: [UInt8],
                attributes: [STUNAttribute] = [], fingerprinted: Bool = true) {
        self.method = method & 0x0FFF
        self.messageClass = messageClass
        self.transactionID = Array((transactionID + [UInt8](repeating: 0, count: 12)).prefix(12))
        self.attributes = attributes.filter { $0.type != STUNAttribute.fingerprint }
        self.fingerprinted = fingerprinted
    }

    /// Whether `bytes` may be STUN rather than RTP, RTCP or DTLS on the same socket: a first
    /// byte of 0…3 (RFC 7983) and the magic cookie where it belongs.
    public static func isSTUN(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= headerBytes else { return false }
        let cookie = bytes.dropFirst(4).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return bytes.first! < 4 && cookie == magicCookie
    }

    /// Reads one message; FINGERPRINT, when present, must be the last attribute and match.
    public init(parsing bytes: [UInt8]) throws(STUNError) {
        guard bytes.count >= Self.headerBytes else {
            throw STUNError(.truncated, "STUN: \(bytes.count) bytes, shorter than a header")
        }
        let cookie = bytes[4 ..< 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard bytes[0] & 0xC0 == 0, cookie == Self.magicCookie else {
            throw STUNError(.notSTUN, "STUN: no magic cookie, or the top bits are set")
        }
        let type = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard length % 4 == 0 else { throw STUNError(.notSTUN, "STUN: a length of \(length), not a multiple of 4") }
        guard bytes.count == Self.headerBytes + length else {
            throw STUNError(.truncated, "STUN: the header says \(length) bytes of attributes, \(bytes.count - Self.headerBytes) follow")
        }
        method = (type & 0x000F) | (type & 0x00E0) >> 1 | (type & 0x3E00) >> 2
        messageClass = Class(rawValue: UInt8((type & 0x0010) >> 4 | (type & 0x0100) >> 7))!
        transactionID = Array(bytes[8 ..< 20])
        attributes = []
        fingerprinted = false
        var offset = Self.headerBytes
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw STUNError(.malformedAttribute, "STUN: an attribute header is cut short") }
            let attributeType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let padded = (valueLength + 3) & ~3
            guard bytes.count - offset - 4 >= padded else {
                throw STUNError(.malformedAttribute, "STUN: attribute 0x\(String(attributeType, radix: 16)) runs past the message")
            }
            if attributeType == STUNAttribute.fingerprint {
                guard valueLength == 4, offset + 8 == bytes.count else {
                    throw STUNError(.malformedAttribute, "STUN: FINGERPRINT is not 4 bytes at the end")
                }
                let stored = bytes[offset + 4 ..< offset + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                guard stored == Self.fingerprint(of: bytes[..<offset]) else {
                    throw STUNError(.badFingerprint, "STUN: FINGERPRINT does not match the message")
                }
                fingerprinted = true
                break
            }
            attributes.append(STUNAttribute(type: attributeType, value: Array(bytes[offset + 4 ..< offset + 4 + valueLength])))
            offset += 4 + padded
        }
    }

    /// The message on the wire, padded with zeros, FINGERPRINT last when ``fingerprinted``.
    public func encoded() -> [UInt8] {
        // Byte by byte into one reserved array: a server writes one of these per request.
        // The header is 8 bytes and the transaction id (12, unless it was set otherwise).
        let header = 8 + transactionID.count
        var size = header + (fingerprinted ? 8 : 0)
        for attribute in attributes where attribute.type != STUNAttribute.fingerprint {
            size += 4 + (attribute.value.count + 3) & ~3
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        let m = method & 0x0FFF, c = UInt16(messageClass.rawValue)
        Self.append16((m & 0x000F) | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 1) << 4 | (c & 2) << 7, to: &bytes)
        Self.append16(UInt16(truncatingIfNeeded: size - header), to: &bytes)
        Self.append32(Self.magicCookie, to: &bytes)
        bytes.append(contentsOf: transactionID)
        for attribute in attributes where attribute.type != STUNAttribute.fingerprint {
            Self.append16(attribute.type, to: &bytes)
            Self.append16(UInt16(truncatingIfNeeded: attribute.value.count), to: &bytes)
            bytes.append(contentsOf: attribute.value)
            for _ in 0 ..< (4 - attribute.value.count % 4) % 4 { bytes.append(0) }
        }
        if fingerprinted {
            // The length covers FINGERPRINT itself before its CRC is taken (§14.7); it was
            // written so above.
            let crc = Self.fingerprint(of: bytes[...])
            Self.append16(STUNAttribute.fingerprint, to: &bytes)
            Self.append16(4, to: &bytes)
            Self.append32(crc, to: &bytes)
        }
        return bytes
    }

    /// The first attribute of `type`, if any.
    public func attribute(_ type: UInt16) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        append16(UInt16(value >> 16), to: &bytes)
        append16(UInt16(value & 0xFFFF), to: &bytes)
    }

    /// CRC-32 (zlib's) of everything before FINGERPRINT, XORed with ``fingerprintXOR``.
    private static func fingerprint(of bytes: ArraySlice<UInt8>) -> UInt32 {
        let crc = bytes.withUnsafeBufferPointer { buffer in
            crc32(0, buffer.baseAddress, uInt(buffer.count))
        }
        return UInt32(truncatingIfNeeded: crc) ^ fingerprintXOR
    }
}
