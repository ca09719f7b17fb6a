/// A receive pipeline was configured in a way it cannot work with. What arrives from the
/// network never throws: it is counted and dropped.
///
/// Callers switch on ``kind``; ``detail`` says, for a person, what was wrong.
public struct ReceivePipelineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it was.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A setting is out of range or clashes with another (no stream, shared payload
        /// types, an audio codec for video).
        case invalidConfiguration
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
