/// An SDP Security Descriptions `a=crypto` attribute (RFC 4568 §9.1) with one inline key.
///
/// Confer reads and writes the subset that real peers use with one key: a tag, a suite,
/// one `inline:` key with an optional lifetime, and no session parameters. A master key
/// identifier (MKI) or a second key is rejected with ``SRTPKeyError/Kind/unsupportedMKI``
/// or ``SRTPKeyError/Kind/unsupportedParameter`` rather than ignored, because a peer that
/// sends one expects MKI-tagged packets this side would not understand.
public struct SDESCryptoAttribute: Sendable, Equatable {
    /// The attribute's tag, which an answer echoes to pick this offer (1 to 999999999).
    public var tag: Int
    /// The suite and key.
    public var key: SRTPMasterKey
    /// The key's lifetime in packets, when the peer gave one. Parsed for completeness but
    /// not enforced: libsrtp's own limit of 2^48 packets applies.
    public var lifetime: UInt64?

    /// An attribute offering `key` under `tag`.
    public init(tag: Int = 1, key: SRTPMasterKey, lifetime: UInt64? = nil) {
        self.tag = tag
        self.key = key
        self.lifetime = lifetime
    }

    /// The profile the attribute names.
    public var profile: SRTPProfile { key.profile }

    /// The attribute as an SDP line without the line break, such as
    /// `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19...`.
    public var attributeLine: String {
        "a=crypto:\(tag) \(key.profile.rawValue) \(key.inlineKeyParameter(lifetime: lifetime))"
    }

    /// Parses `a=crypto:TAG SUITE inline:KEY[|LIFETIME]`; the `a=` prefix and a trailing
    /// line break are optional.
    public init(parsing text: some StringProtocol) throws(SRTPKeyError) {
        var scanner = SDESScanner(Array(text.utf8))
        scanner.trimTrailingLineBreak()
        _ = scanner.consume("a=")
        guard scanner.consume("crypto:") else {
            throw SRTPKeyError(.malformed, offset: scanner.position, "expected 'crypto:'")
        }
        let tagStart = scanner.position
        let tagDigits = scanner.take { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard (1 ... 9).contains(tagDigits.count), let tag = Int(String(decoding: tagDigits, as: UTF8.self)) else {
            throw SRTPKeyError(.malformed, offset: tagStart, "the tag must be 1 to 9 digits")
        }
        guard scanner.skipWhitespace() else {
            throw SRTPKeyError(.malformed, offset: scanner.position, "expected a space after the tag")
        }
        let suiteStart = scanner.position
        let suite = String(decoding: scanner.take { !SDESScanner.isWhitespace($0) }, as: UTF8.self)
        guard let profile = SRTPProfile(rawValue: suite) else {
            throw SRTPKeyError(.unknownCryptoSuite, offset: suiteStart, "unknown crypto-suite '\(suite)'")
        }
        guard scanner.skipWhitespace() else {
            throw SRTPKeyError(.malformed, offset: scanner.position, "expected a space after the crypto-suite")
        }
        let keyStart = scanner.position
        let keyParams = scanner.take { !SDESScanner.isWhitespace($0) }
        if keyParams.contains(UInt8(ascii: ";")) {
            throw SRTPKeyError(.unsupportedParameter, offset: keyStart, "more than one key; Confer takes a single inline key")
        }
        _ = scanner.skipWhitespace()
        if !scanner.isAtEnd {
            throw SRTPKeyError(.unsupportedParameter, offset: scanner.position, "session parameters are not supported")
        }
        let parsed = try SRTPMasterKey.parseInline(profile: profile, keyParams, baseOffset: keyStart)
        self.init(tag: tag, key: parsed.key, lifetime: parsed.lifetime)
    }
}

extension SRTPMasterKey {
    /// The key as an RFC 4568 key parameter: `inline:` and the base64 key and salt.
    public var inlineKeyParameter: String { inlineKeyParameter(lifetime: nil) }

    /// The key parameter with an optional `|lifetime` (written as a power of two when it is one).
    public func inlineKeyParameter(lifetime: UInt64?) -> String {
        guard let lifetime else { return "inline:\(base64)" }
        if lifetime.nonzeroBitCount == 1 { return "inline:\(base64)|2^\(lifetime.trailingZeroBitCount)" }
        return "inline:\(base64)|\(lifetime)"
    }

    /// Keys from an RFC 4568 key parameter such as `inline:WVNfX19...|2^20`; a lifetime is
    /// accepted and dropped, an MKI is rejected.
    public init(profile: SRTPProfile, inlineKeyParameter text: some StringProtocol) throws(SRTPKeyError) {
        self = try Self.parseInline(profile: profile, Array(text.utf8), baseOffset: 0).key
    }

    /// Parses `inline:KEYSALT[|LIFETIME][|MKI:LENGTH]`; offsets are reported from `baseOffset`.
    static func parseInline(profile: SRTPProfile, _ bytes: [UInt8], baseOffset: Int) throws(SRTPKeyError)
        -> (key: SRTPMasterKey, lifetime: UInt64?)
    {
        let method = Array("inline:".utf8)
        guard bytes.starts(with: method) else {
            throw SRTPKeyError(.malformed, offset: baseOffset, "expected 'inline:' key parameters")
        }
        let fields = bytes[method.count...].split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
        guard fields.count <= 3 else {
            throw SRTPKeyError(.malformed, offset: baseOffset, "too many '|' fields after the key")
        }
        let keyText = Substring(decoding: fields[0], as: UTF8.self)
        let key = try SRTPMasterKey(
            profile: profile,
            keyingMaterial: Base64.decode(keyText, baseOffset: baseOffset + method.count)
        )
        var lifetime: UInt64?
        for (number, field) in fields.dropFirst().enumerated() {
            let offset = baseOffset + field.startIndex
            // RFC 4568 tells the two optional fields apart by the MKI's colon.
            if field.contains(UInt8(ascii: ":")) {
                throw SRTPKeyError(.unsupportedMKI, offset: offset, "keys with a master key identifier (MKI) are not supported")
            }
            guard number == 0 else {
                throw SRTPKeyError(.malformed, offset: offset, "an MKI must have the form VALUE:LENGTH")
            }
            lifetime = try parseLifetime(field, offset: offset)
        }
        return (key, lifetime)
    }

    private static func parseLifetime(_ field: ArraySlice<UInt8>, offset: Int) throws(SRTPKeyError) -> UInt64 {
        let isPower = field.starts(with: "2^".utf8)
        let digits = isPower ? field.dropFirst(2) : field
        guard !digits.isEmpty, digits.count <= 20,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = UInt64(String(decoding: digits, as: UTF8.self))
        else {
            throw SRTPKeyError(.malformed, offset: offset, "the lifetime must be a number or 2^number")
        }
        guard isPower else { return value }
        guard value < 64 else {
            throw SRTPKeyError(.malformed, offset: offset, "the lifetime 2^\(value) does not fit in 64 bits")
        }
        return 1 << value
    }
}

/// A cursor over an attribute's UTF-8 bytes that knows its offset for error messages.
struct SDESScanner {
    private let bytes: [UInt8]
    private var end: Int
    private(set) var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        end = bytes.count
    }

    var isAtEnd: Bool { position >= end }

    static func isWhitespace(_ c: UInt8) -> Bool { c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") }

    mutating func trimTrailingLineBreak() {
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
    }

    /// Consumes `literal` if the text continues with it.
    mutating func consume(_ literal: String) -> Bool {
        let literal = literal.utf8
        guard bytes[position ..< end].starts(with: literal) else { return false }
        position += literal.count
        return true
    }

    /// Consumes and returns the longest run of bytes that satisfy `predicate`.
    mutating func take(while predicate: (UInt8) -> Bool) -> [UInt8] {
        let start = position
        while position < end, predicate(bytes[position]) { position += 1 }
        return Array(bytes[start ..< position])
    }

    /// Consumes spaces and tabs; false when there were none.
    mutating func skipWhitespace() -> Bool { !take(while: Self.isWhitespace).isEmpty }
}
