public import ConferMedia

/// Why bytes are not a STUN message Confer can read.
///
/// Callers switch on ``KindedError/kind``; ``KindedError/detail`` says what was wrong.
public typealias STUNError = KindedError<STUNErrorKind>

/// What kind of problem a ``STUNError`` is.
public enum STUNErrorKind: String, Hashable, Sendable, Codable {
    /// Shorter than its header, or than its header says.
    case truncated
    /// Not STUN: the top bits, the magic cookie or a length that is not a multiple of four.
    case notSTUN
    /// An attribute runs past the message, or FINGERPRINT is not the last attribute.
    case malformedAttribute
    /// FINGERPRINT does not match the message (damaged, or another protocol's bytes).
    case badFingerprint
    /// An address attribute of the wrong length or an unknown address family.
    case badAddress
}
