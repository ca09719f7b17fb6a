/// A compositing host was configured or asked to do something it cannot.
///
/// Callers switch on ``kind``; ``detail`` says, for a person, what was wrong.
public struct HostPipelineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it was.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A setting is out of range or clashes with another (canvas, rates, payload types,
        /// SSRCs, packet size, audio frame length).
        case invalidConfiguration
        /// The participant being added is in the meeting already.
        case duplicateParticipant
        /// The audio mixer would not take the participant (``detail`` keeps its error).
        case mixerRefused
    }

    /// What kind of mistake it was.
    public let kind: Kind
    /// What was wrong, for a person.
    public let detail: String

    /// An error of `kind` saying `detail`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
