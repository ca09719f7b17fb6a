internal import CSRTP

/// An SRTP protection profile: cipher, authentication and key sizes for RTP and RTCP.
///
/// Raw values are the crypto-suite names of RFC 4568 (SDES) and RFC 7714 (AES-GCM), so a
/// profile reads and prints exactly as it appears in an `a=crypto` line.
public enum SRTPProfile: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// AES-128 counter mode with an 80-bit HMAC-SHA1 tag on RTP and RTCP (RFC 4568 §6.2.1).
    case aes128CmHmacSha1_80 = "AES_CM_128_HMAC_SHA1_80"
    /// AES-128 counter mode with a 32-bit HMAC-SHA1 tag on RTP and an 80-bit one on RTCP
    /// (RFC 4568 §6.2.2; RFC 3711 §7.5 advises against short tags on RTCP).
    case aes128CmHmacSha1_32 = "AES_CM_128_HMAC_SHA1_32"
    /// AES-128 in Galois/counter mode with a 16-byte tag on RTP and RTCP (RFC 7714 §14.2).
    case aeadAes128Gcm = "AEAD_AES_128_GCM"

    /// The suite name as written in SDP, such as `AES_CM_128_HMAC_SHA1_80`.
    public var description: String { rawValue }

    /// Bytes in the master key.
    public var masterKeyLength: Int { 16 }

    /// Bytes in the master salt: 14 for AES-CM (RFC 3711), 12 for AES-GCM (RFC 7714).
    public var masterSaltLength: Int {
        switch self {
        case .aes128CmHmacSha1_80, .aes128CmHmacSha1_32: 14
        case .aeadAes128Gcm: 12
        }
    }

    /// Bytes of master key followed by master salt, as carried in SDES `inline:` keys.
    public var keyingMaterialLength: Int { masterKeyLength + masterSaltLength }

    /// Bytes that protecting one RTP packet appends: the authentication tag (no MKI).
    public var rtpOverhead: Int {
        switch self {
        case .aes128CmHmacSha1_80: 10
        case .aes128CmHmacSha1_32: 4
        case .aeadAes128Gcm: 16
        }
    }

    /// Bytes that protecting one RTCP packet appends: the 4-byte E flag and SRTCP index,
    /// then the tag, which is 80 bits for both AES-CM profiles.
    public var rtcpOverhead: Int {
        switch self {
        case .aes128CmHmacSha1_80, .aes128CmHmacSha1_32: 4 + 10
        case .aeadAes128Gcm: 4 + 16
        }
    }

    /// Fills libsrtp's RTP and RTCP crypto policies for this profile.
    func apply(rtp: inout srtp_crypto_policy_t, rtcp: inout srtp_crypto_policy_t) {
        switch self {
        case .aes128CmHmacSha1_80:
            // srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 is a function-like macro that
            // Swift cannot import; it expands to exactly this call.
            srtp_crypto_policy_set_rtp_default(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aes128CmHmacSha1_32:
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&rtp)
            // libsrtp's own advice for this policy: keep the long tag on SRTCP.
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtcp)
        }
    }
}
