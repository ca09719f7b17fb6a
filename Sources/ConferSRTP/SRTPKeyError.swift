/// Why SRTP keying material or an SDES `a=crypto` attribute could not be read.
///
/// Thrown before libsrtp is involved, so it carries no libsrtp code; see ``SRTPError``
/// for failures inside libsrtp.
public struct SRTPKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: String, Sendable, Codable {
        /// The text does not follow the RFC 4568 grammar (or the CLI `PROFILE:BASE64` form).
        case malformed
        /// The crypto-suite name is not one of ``SRTPProfile``'s.
        case unknownCryptoSuite
        /// The key is not valid base64.
        case invalidBase64
        /// The decoded key and salt are not as long as the profile requires.
        case wrongKeyLength
        /// The key carries a master key identifier (MKI), which Confer does not use.
        case unsupportedMKI
        /// A session parameter or second key that Confer does not implement.
        case unsupportedParameter
    }

    /// What kind of problem it was.
    public let kind: Kind
    /// UTF-8 offset in the parsed text where the problem was found, when known.
    public let offset: Int?
    /// A sentence for a person: what was wrong.
    public let detail: String

    /// An error of `kind` found at `offset`.
    public init(_ kind: Kind, offset: Int? = nil, _ detail: String) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }

    /// The problem for a person, with where it was found.
    public var description: String {
        if let offset { return "SRTP key: \(detail) (at offset \(offset))" }
        return "SRTP key: \(detail)"
    }
}
