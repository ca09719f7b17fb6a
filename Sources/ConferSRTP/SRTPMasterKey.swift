/// An SRTP master key and master salt for one profile, the secret both ends share.
///
/// The bytes are checked against the profile's lengths when the value is made, so every
/// `SRTPMasterKey` can create an ``SRTPSession``. `description` never prints the secret.
public struct SRTPMasterKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The profile these keys are for.
    public let profile: SRTPProfile
    /// The master key followed by the master salt (``SRTPProfile/keyingMaterialLength`` bytes).
    public let keyingMaterial: [UInt8]

    /// Keys from `keyingMaterial`, which must be exactly as long as `profile` requires.
    public init(profile: SRTPProfile, keyingMaterial: some Collection<UInt8>) throws(SRTPKeyError) {
        guard keyingMaterial.count == profile.keyingMaterialLength else {
            throw SRTPKeyError(
                .wrongKeyLength,
                "\(profile) needs \(profile.keyingMaterialLength) bytes of key and salt, got \(keyingMaterial.count)"
            )
        }
        self.profile = profile
        self.keyingMaterial = Array(keyingMaterial)
    }

    /// Keys from the base64 text of master key and salt, as in an SDES `inline:` key.
    public init(profile: SRTPProfile, base64: some StringProtocol) throws(SRTPKeyError) {
        try self.init(profile: profile, keyingMaterial: Base64.decode(Substring(base64)))
    }

    /// Fresh keys drawn from the system's cryptographically secure generator.
    public static func random(profile: SRTPProfile) -> SRTPMasterKey {
        var generator = SystemRandomNumberGenerator()
        return random(profile: profile, using: &generator)
    }

    /// Keys drawn from `generator`; only tests should pass anything but a secure generator.
    public static func random(profile: SRTPProfile, using generator: inout some RandomNumberGenerator) -> SRTPMasterKey {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(profile.keyingMaterialLength)
        while bytes.count < profile.keyingMaterialLength {
            var word = generator.next()
            for _ in 0 ..< min(8, profile.keyingMaterialLength - bytes.count) {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        // The length is right by construction, so this cannot throw.
        return SRTPMasterKey(unchecked: profile, bytes)
    }

    private init(unchecked profile: SRTPProfile, _ bytes: [UInt8]) {
        self.profile = profile
        keyingMaterial = bytes
    }

    /// The master key alone (the first 16 bytes).
    public var masterKey: ArraySlice<UInt8> { keyingMaterial[..<profile.masterKeyLength] }

    /// The master salt alone (the bytes after the key).
    public var masterSalt: ArraySlice<UInt8> { keyingMaterial[profile.masterKeyLength...] }

    /// Master key and salt as padded base64.
    public var base64: String { Base64.encode(keyingMaterial) }

    /// Key and salt in the `confer` command line's `PROFILE:BASE64` form, such as
    /// `AES_CM_128_HMAC_SHA1_80:WVNfX19...`.
    public var commandLineForm: String { "\(profile.rawValue):\(base64)" }

    /// Keys from the command line's `PROFILE:BASE64` form.
    public init(commandLineForm text: some StringProtocol) throws(SRTPKeyError) {
        let text = Substring(text)
        guard let colon = text.firstIndex(of: ":") else {
            throw SRTPKeyError(.malformed, "expected PROFILE:BASE64, such as AES_CM_128_HMAC_SHA1_80:<base64 key and salt>")
        }
        let name = text[..<colon]
        guard let profile = SRTPProfile(rawValue: String(name)) else {
            throw SRTPKeyError(.unknownCryptoSuite, offset: 0, "unknown SRTP profile '\(name)'")
        }
        let keyStart = text.utf8.distance(from: text.startIndex, to: colon) + 1
        try self.init(profile: profile, keyingMaterial: Base64.decode(text[text.index(after: colon)...], baseOffset: keyStart))
    }

    /// The profile and length only: keys never reach logs.
    public var description: String {
        "SRTPMasterKey(\(profile), \(keyingMaterial.count) bytes)"
    }

    /// The same as `description`, so `debugPrint` does not leak the key either.
    public var debugDescription: String { description }
}
