/// A send pipeline was configured or fed in a way it cannot work with.
///
/// Callers switch on ``kind``; ``detail`` says, for a person, what was wrong.
public struct SendPipelineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it was.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A setting is out of range or clashes with another (sizes, rates, SSRCs,
        /// payload types, header extension ids, packet size).
        case invalidConfiguration
        /// A frame or call does not fit the stream it was given to (its size, channels or
        /// codec, or a stream the pipeline does not have).
        case wrongInput
        /// A frame could not be split into RTP packets (``detail`` keeps the payload error).
        case packetization
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
