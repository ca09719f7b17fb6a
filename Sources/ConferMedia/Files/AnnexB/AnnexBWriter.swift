/// Writes H.264 access units, already in Annex-B form, as an elementary stream.
public final class AnnexBWriter {
    /// Access units written so far.
    public private(set) var framesWritten = 0
    private let sink: any ByteSink
    private var finished = false

    /// Creates `path` for an H.264 Annex-B stream.
    public convenience init(path: String) throws(MediaFileError) {
        try self.init(sink: FileByteSink(path: path))
    }

    /// Writes the stream to `sink`.
    public init(sink: any ByteSink) { self.sink = sink }

    deinit { try? finish() }

    /// Appends `frame.data` as is; it must be H.264 starting with a start code.
    public func write(_ frame: EncodedFrame) throws(MediaFileError) {
        guard frame.codec == .h264 else {
            throw MediaFileError(.malformed, format: AnnexBScanner.format, offset: sink.position, "frame is \(frame.codec), not H.264")
        }
        let d = frame.data
        guard d.count >= 4, d[0] == 0, d[1] == 0, d[2] == 1 || (d[2] == 0 && d[3] == 1) else {
            throw MediaFileError(.malformed, format: AnnexBScanner.format, offset: sink.position,
                                 "access unit \(framesWritten) does not begin with a start code")
        }
        try sink.write(d)
        framesWritten += 1
    }

    /// Flushes everything written; no more frames afterwards.
    public func finish() throws(MediaFileError) {
        guard !finished else { return }
        finished = true
        try sink.flush()
    }
}
