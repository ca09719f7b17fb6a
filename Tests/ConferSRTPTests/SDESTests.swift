import ConferSRTP
import Testing

@Suite struct SDESTests {
    /// The key from RFC 4568 §9.1's example, minus its MKI.
    static let rfcKey = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"
    static let rfcKeyBytes = Array("YS___semctl () {\t220;}\n}\nunles".utf8)

    @Test func parsesAValidAttributeLine() throws {
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.rfcKey)|2^20\r\n")
        #expect(attribute.tag == 1)
        #expect(attribute.profile == .aes128CmHmacSha1_80)
        #expect(attribute.key.keyingMaterial == Self.rfcKeyBytes)
        #expect(attribute.key.masterKey.count == 16)
        #expect(attribute.key.masterSalt.count == 14)
        #expect(attribute.lifetime == 1 << 20)
        #expect(attribute.attributeLine == "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.rfcKey)|2^20")
    }

    @Test func parsesWithoutPrefixOrLifetimeAndWithTabs() throws {
        let attribute = try SDESCryptoAttribute(parsing: "crypto:42\tAES_CM_128_HMAC_SHA1_32  inline:\(Self.rfcKey)|1048575")
        #expect(attribute.tag == 42)
        #expect(attribute.profile == .aes128CmHmacSha1_32)
        #expect(attribute.lifetime == 1_048_575)
        #expect(attribute.attributeLine.hasSuffix("|1048575"))
        let bare = try SDESCryptoAttribute(parsing: "a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:\(Self.rfcKey)")
        #expect(bare.lifetime == nil)
        #expect(bare.attributeLine == "a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:\(Self.rfcKey)")
    }

    @Test func parsesAnInlineKeyParameterAlone() throws {
        let key = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, inlineKeyParameter: "inline:\(Self.rfcKey)|2^31")
        #expect(key.keyingMaterial == Self.rfcKeyBytes)
        #expect(key.inlineKeyParameter == "inline:\(Self.rfcKey)")
    }

    @Test func aeadKeysAre28BytesWithPadding() throws {
        let text = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw=="
        let key = try SRTPMasterKey(profile: .aeadAes128Gcm, base64: text)
        #expect(key.keyingMaterial == Array(0 ..< 28))
        #expect(key.base64 == text)
        let unpadded = try SRTPMasterKey(profile: .aeadAes128Gcm, base64: text.dropLast(2))
        #expect(unpadded == key)
        let line = try SDESCryptoAttribute(parsing: "a=crypto:3 AEAD_AES_128_GCM inline:\(text)")
        #expect(line.key == key)
    }

    @Test func badBase64IsReportedWhereItIs() {
        let line = "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwg*CkgewkyMjA7fQp9CnVubGVz"
        let error = #expect(throws: SRTPKeyError.self) { try SDESCryptoAttribute(parsing: line) }
        #expect(error?.kind == .invalidBase64)
        #expect(error?.offset == Array(line.utf8).firstIndex(of: UInt8(ascii: "*")))
        let padded = #expect(throws: SRTPKeyError.self) { try SRTPMasterKey(profile: .aeadAes128Gcm, base64: "AAE=AA==") }
        #expect(padded?.kind == .invalidBase64)
        let dangling = #expect(throws: SRTPKeyError.self) { try SRTPMasterKey(profile: .aeadAes128Gcm, base64: "AAECA") }
        #expect(dangling?.kind == .invalidBase64)
    }

    @Test func aShortOrLongKeyIsTheWrongLength() {
        let short = #expect(throws: SRTPKeyError.self) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw==")
        }
        #expect(short?.kind == .wrongKeyLength)
        #expect(short?.detail.contains("got 28") == true)
        let long = #expect(throws: SRTPKeyError.self) {
            try SRTPMasterKey(profile: .aeadAes128Gcm, keyingMaterial: [UInt8](repeating: 1, count: 30))
        }
        #expect(long?.kind == .wrongKeyLength)
    }

    @Test func unknownSuitesAreNamed() {
        let error = #expect(throws: SRTPKeyError.self) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 F8_128_HMAC_SHA1_80 inline:\(Self.rfcKey)")
        }
        #expect(error?.kind == .unknownCryptoSuite)
        #expect(error?.offset == 11)
        #expect(error?.detail.contains("F8_128_HMAC_SHA1_80") == true)
    }

    @Test func anMKIIsRejectedWithOrWithoutALifetime() {
        for keyParams in ["inline:\(Self.rfcKey)|2^20|1:4", "inline:\(Self.rfcKey)|1:4"] {
            let error = #expect(throws: SRTPKeyError.self) {
                try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 \(keyParams)")
            }
            #expect(error?.kind == .unsupportedMKI, "\(keyParams)")
        }
    }

    @Test func sessionParametersAndSecondKeysAreRejected() {
        let parameter = #expect(throws: SRTPKeyError.self) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.rfcKey) UNENCRYPTED_SRTP")
        }
        #expect(parameter?.kind == .unsupportedParameter)
        let twoKeys = #expect(throws: SRTPKeyError.self) {
            try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.rfcKey)|2^20|1:4;inline:\(Self.rfcKey)|2^20|2:4")
        }
        #expect(twoKeys?.kind == .unsupportedParameter)
    }

    @Test(arguments: [
        "a=fingerprint:sha-256 AB",
        "a=crypto: AES_CM_128_HMAC_SHA1_80 inline:x",
        "a=crypto:1234567890 AES_CM_128_HMAC_SHA1_80 inline:x",
        "a=crypto:1AES_CM_128_HMAC_SHA1_80",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 key:WVNf",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|2^64",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|x",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|2^20|20",
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(rfcKey)|1|2|3",
        "",
    ])
    func malformedLinesAreMalformed(line: String) {
        let error = #expect(throws: SRTPKeyError.self) { try SDESCryptoAttribute(parsing: line) }
        #expect(error?.kind == .malformed, "\(line)")
    }

    @Test func theCommandLineFormRoundTrips() throws {
        let key = try SRTPMasterKey(commandLineForm: "AES_CM_128_HMAC_SHA1_80:\(Self.rfcKey)")
        #expect(key.profile == .aes128CmHmacSha1_80)
        #expect(key.keyingMaterial == Self.rfcKeyBytes)
        #expect(key.commandLineForm == "AES_CM_128_HMAC_SHA1_80:\(Self.rfcKey)")
        let noColon = #expect(throws: SRTPKeyError.self) { try SRTPMasterKey(commandLineForm: Self.rfcKey) }
        #expect(noColon?.kind == .malformed)
        let unknown = #expect(throws: SRTPKeyError.self) { try SRTPMasterKey(commandLineForm: "AES_256:\(Self.rfcKey)") }
        #expect(unknown?.kind == .unknownCryptoSuite)
        let bad = #expect(throws: SRTPKeyError.self) { try SRTPMasterKey(commandLineForm: "AEAD_AES_128_GCM:AA#A") }
        #expect(bad?.kind == .invalidBase64)
        #expect(bad?.offset == 19)
    }

    @Test(arguments: SRTPProfile.allCases)
    func generatedKeysHaveTheRightLengthAndRoundTrip(profile: SRTPProfile) throws {
        let key = SRTPMasterKey.random(profile: profile)
        #expect(key.keyingMaterial.count == profile.keyingMaterialLength)
        #expect(key.keyingMaterial.count == (profile == .aeadAes128Gcm ? 28 : 30))
        #expect(key.base64.count == 40)
        #expect(try SRTPMasterKey(profile: profile, inlineKeyParameter: key.inlineKeyParameter) == key)
        #expect(try SRTPMasterKey(commandLineForm: key.commandLineForm) == key)
        let attribute = SDESCryptoAttribute(tag: 5, key: key, lifetime: 1 << 31)
        #expect(try SDESCryptoAttribute(parsing: attribute.attributeLine) == attribute)
        #expect(!key.description.contains(key.base64), "descriptions never print the secret")
        #expect(!String(reflecting: key).contains(key.base64))
        #expect(SRTPMasterKey.random(profile: profile) != key)
    }

    @Test func seededKeysAreReproducible() {
        var a = TestRandom(seed: 99)
        var b = TestRandom(seed: 99)
        #expect(SRTPMasterKey.random(profile: .aeadAes128Gcm, using: &a) == SRTPMasterKey.random(profile: .aeadAes128Gcm, using: &b))
    }
}
