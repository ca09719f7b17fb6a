import ConferMedia

/// What `confer snapshot` wrote.
public struct SnapshotReport: Codable, Sendable {
    /// The video read.
    public var input: String
    /// The PNG written.
    public var output: String
    /// The index of the frame written (from 0).
    public var frameIndex: Int
    /// Its time in the video, in seconds.
    public var seconds: Double
    /// Picture width.
    public var width: Int
    /// Picture height.
    public var height: Int
    /// Bytes of PNG written.
    public var bytes: Int
}

/// Writes one frame of a video as a PNG picture: Y4M as it is, IVF and H.264 decoded up
/// to the frame on screen at the time asked for.
public enum SnapshotJob {
    /// Writes the frame of `input` on screen at `seconds` (frame `⌊seconds × rate⌋`) to `output`.
    public static func run(input: String, output: String, at seconds: Double = 0) throws -> SnapshotReport {
        guard seconds.isFinite, seconds >= 0 else { throw JobError(.invalidOptions, "--at \(seconds) must be a time of 0 s or more") }
        guard fileExtension(output) == "png" else { throw JobError(.invalidOptions, "a snapshot is a PNG picture: write to FILE.png, not '\(output)'") }
        let reader = try VideoFileReader(path: input)
        // The tiny bias keeps a time given as k / rate (0.1 at 30 fps) on frame k.
        let wanted = Int((seconds * reader.frameRate + 1e-6).rounded(.down))
        var index = 0
        var chosen: VideoFrame?
        while index <= wanted {
            guard let frame = try reader.next() else {
                throw JobError(.invalidInput, "\(input) has \(index) frames (\(fixedSeconds(Double(index) / reader.frameRate)) s); "
                               + "--at \(seconds) is past its end")
            }
            chosen = frame
            index += 1
        }
        guard let frame = chosen else { throw JobError(.invalidInput, "\(input) has no frames") }
        try PNGFile.write(frame, to: output)
        let bytes = (try? FileByteSource(path: output).length) ?? nil
        return SnapshotReport(input: input, output: output, frameIndex: wanted, seconds: Double(wanted) / reader.frameRate,
                              width: frame.width, height: frame.height, bytes: bytes ?? 0)
    }

    private static func fixedSeconds(_ value: Double) -> String {
        String(Double(Int((value * 1000).rounded())) / 1000)
    }
}
