public import ConferMedia

/// A job could not run as asked. ``detail`` says what was wrong and what to do; callers
/// (the CLI's exit status, an app's retry logic) switch on ``kind``.
public typealias JobError = KindedError<JobErrorKind>

/// What kind of problem a ``JobError`` is.
public enum JobErrorKind: String, Hashable, Sendable, Codable {
    /// An option is out of range, missing or clashes with another: fix the command. An
    /// output name counts as an option: an extension no writer has (`-o clip.mp4`), or one
    /// that cannot hold the codec asked for (VP8 into `.h264`), as does a `--codec` that
    /// does not fit the input (a video codec for a `.wav`).
    case invalidOptions
    /// An input file is of a kind that does not fit where it is used (audio where video was
    /// expected, as probed): pick another file.
    case unsupportedFormat
    /// An input file is readable but unusable as it is (no frame rate, no frames,
    /// a size change mid-stream, a malformed layout).
    case invalidInput
    /// The file system refused (a directory could not be made, a file not read).
    case io
    /// The job stopped in a state it should never reach; a bug to report.
    case internalFailure
}

/// The lower-case extension of `path` ("y4m" for "a/b.Y4M"), or "".
package func fileExtension(_ path: String) -> String {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
    return path[path.index(after: dot)...].lowercased()
}
