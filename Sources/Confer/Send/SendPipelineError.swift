public import ConferMedia

/// A send pipeline was configured or fed in a way it cannot work with.
///
/// Callers switch on ``kind``; ``detail`` says, for a person, what was wrong.
public typealias SendPipelineError = KindedError<SendPipelineErrorKind>

/// What kind of mistake a ``SendPipelineError`` is.
public enum SendPipelineErrorKind: String, Hashable, Sendable, Codable {
    /// A setting is out of range or clashes with another (sizes, rates, SSRCs,
    /// payload types, header extension ids, packet size).
    case invalidConfiguration
    /// A frame or call does not fit the stream it was given to (its size, channels or
    /// codec, or a stream the pipeline does not have).
    case wrongInput
    /// A frame could not be split into RTP packets (``detail`` keeps the payload error).
    case packetization
}
