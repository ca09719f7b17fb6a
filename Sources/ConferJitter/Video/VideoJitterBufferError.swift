public import ConferMedia

/// A video jitter buffer was asked for something it cannot be. What arrives from the
/// network never throws: it is counted and dropped.
public typealias VideoJitterBufferError = KindedError<VideoJitterBufferErrorKind>

/// What kind of mistake a ``VideoJitterBufferError`` is.
public enum VideoJitterBufferErrorKind: String, Hashable, Sendable, Codable {
    /// The codec is not a video codec (Opus goes to the audio jitter buffer).
    case notAVideoCodec
}
