public import ConferMedia

/// A compositing host was configured or asked to do something it cannot.
///
/// Callers switch on ``kind``; ``detail`` says, for a person, what was wrong.
public typealias HostPipelineError = KindedError<HostPipelineErrorKind>

/// What kind of mistake a ``HostPipelineError`` is.
public enum HostPipelineErrorKind: String, Hashable, Sendable, Codable {
    /// A setting is out of range or clashes with another (canvas, rates, payload types,
    /// SSRCs, packet size, audio frame length).
    case invalidConfiguration
    /// The participant being added is in the meeting already.
    case duplicateParticipant
    /// The audio mixer would not take the participant (``detail`` keeps its error).
    case mixerRefused
}
