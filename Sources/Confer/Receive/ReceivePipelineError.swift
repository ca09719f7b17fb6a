public import ConferMedia

/// A receive pipeline was configured in a way it cannot work with. What arrives from the
/// network never throws: it is counted and dropped.
///
/// Callers switch on ``kind``; ``detail`` says, for a person, what was wrong.
public typealias ReceivePipelineError = KindedError<ReceivePipelineErrorKind>

/// What kind of mistake a ``ReceivePipelineError`` is.
public enum ReceivePipelineErrorKind: String, Hashable, Sendable, Codable {
    /// A setting is out of range or clashes with another (no stream, shared payload
    /// types, an audio codec for video).
    case invalidConfiguration
}
