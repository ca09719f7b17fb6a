internal import CSRTP

/// A failure to create an SRTP session or to protect or unprotect a packet.
///
/// Keeps libsrtp's raw `srtp_err_status_t` code and its name. Problems Confer finds before
/// calling libsrtp (a buffer without room for the tag, a packet shorter than a header)
/// have no code. Every string is a literal, so making one allocates nothing: a flood of
/// forged packets costs no memory traffic beyond libsrtp's own work.
public struct SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure it was: what a receiver should do with the packet.
    public enum Kind: String, Sendable, Codable {
        /// The tag did not match: forged, corrupted or keyed differently. Drop the packet.
        case authenticationFailed
        /// The packet index was seen before or is older than the replay window. Drop it.
        /// On the sending side: a sequence number was reused.
        case replayed
        /// libsrtp refused a parameter, or the packet is too short or misaligned to be one.
        case badParameter
        /// The caller's buffer has no room for the trailer that protection appends.
        case bufferTooSmall
        /// The master key has protected as many packets as it may (2^48 SRTP, 2^31 SRTCP).
        case keyExpired
        /// The session was used in the direction it was not made for.
        case wrongDirection
        /// Any other libsrtp failure, such as a cipher or allocation failure.
        case libraryFailure
    }

    /// What kind of failure it was.
    public let kind: Kind
    /// libsrtp's `srtp_err_status_t` value, or nil when Confer found the problem first.
    public let code: Int32?
    /// The name of libsrtp's code (such as `srtp_err_status_auth_fail`), or of Confer's check.
    public let name: String
    /// A sentence for a person: what was wrong.
    public let detail: String

    /// An error for libsrtp's `status` while doing `operation`.
    init(status: srtp_err_status_t, during operation: String) {
        code = Int32(truncatingIfNeeded: status.rawValue)
        (kind, name) = Self.classify(status)
        detail = operation
    }

    /// An error Confer found before calling libsrtp.
    init(_ kind: Kind, name: String, _ detail: String) {
        self.kind = kind
        code = nil
        self.name = name
        self.detail = detail
    }

    /// The failure for a log line: what was being done, libsrtp's name and code.
    public var description: String {
        if let code { return "SRTP: \(detail) failed: \(name) (\(code))" }
        return "SRTP: \(detail) (\(name))"
    }

    private static func classify(_ status: srtp_err_status_t) -> (Kind, String) {
        switch status {
        case srtp_err_status_auth_fail: (.authenticationFailed, "srtp_err_status_auth_fail")
        case srtp_err_status_replay_fail: (.replayed, "srtp_err_status_replay_fail")
        case srtp_err_status_replay_old: (.replayed, "srtp_err_status_replay_old")
        case srtp_err_status_bad_param: (.badParameter, "srtp_err_status_bad_param")
        case srtp_err_status_key_expired: (.keyExpired, "srtp_err_status_key_expired")
        case srtp_err_status_fail: (.libraryFailure, "srtp_err_status_fail")
        case srtp_err_status_alloc_fail: (.libraryFailure, "srtp_err_status_alloc_fail")
        case srtp_err_status_init_fail: (.libraryFailure, "srtp_err_status_init_fail")
        case srtp_err_status_cipher_fail: (.libraryFailure, "srtp_err_status_cipher_fail")
        case srtp_err_status_no_ctx: (.libraryFailure, "srtp_err_status_no_ctx")
        case srtp_err_status_cant_check: (.libraryFailure, "srtp_err_status_cant_check")
        case srtp_err_status_parse_err: (.badParameter, "srtp_err_status_parse_err")
        case srtp_err_status_bad_mki: (.badParameter, "srtp_err_status_bad_mki")
        case srtp_err_status_pkt_idx_old: (.replayed, "srtp_err_status_pkt_idx_old")
        case srtp_err_status_pkt_idx_adv: (.libraryFailure, "srtp_err_status_pkt_idx_adv")
        default: (.libraryFailure, "srtp_err_status_t")
        }
    }
}
