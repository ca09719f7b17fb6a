import ConferMedia

/// The synthetic pictures `confer generate` can draw.
public enum VideoPattern: String, Sendable, CaseIterable, Codable {
    /// A coloured test card with a moving box and the frame counter (digits and a machine-readable strip).
    case testcard
    /// Hard-to-encode moving noise, for honest codec measurements.
    case noise
}

/// What `confer generate` wrote.
public struct GenerateReport: Codable, Sendable {
    /// The file written.
    public var output: String
    /// "video" or "audio".
    public var kind: String
    /// The pattern or tone drawn.
    public var pattern: String
    /// Frames (video) or sample frames (audio) written.
    public var units: Int
    /// Media seconds.
    public var seconds: Double
    /// Bytes written.
    public var bytes: Int
}

/// Writes synthetic media: a test pattern to `.y4m`, a tone with talk spurts to `.wav` or `.opus`.
public enum Generator {
    /// Generates `seconds` of media into `path`; the extension chooses video or audio.
    ///
    /// `index` picks the source's colour (video) or tone frequency (audio), so several
    /// generated participants are told apart in a composite or a mix.
    public static func run(output path: String, pattern: VideoPattern = .testcard, width: Int = 640, height: Int = 360,
                           frameRate: Double = 30, seconds: Double = 5, index: Int = 0, channels: Int = 1,
                           seed: UInt64 = 1, progress: (Int, Int?) -> Void = { _, _ in }) throws -> GenerateReport {
        switch fileExtension(path) {
        case "y4m":
            let total = Int((seconds * frameRate).rounded())
            let writer = try VideoFileWriter(path: path, codec: nil,
                                             settings: .init(width: width, height: height, frameRate: frameRate))
            switch pattern {
            case .testcard:
                let source = TestPatternSource(width: width, height: height, frameRate: frameRate, colorIndex: index, seed: seed)
                for i in 0..<total { try writer.write(source.render(frameIndex: i)); progress(i + 1, total) }
            case .noise:
                let source = NoisePatternSource(width: width, height: height, frameRate: frameRate, seed: seed)
                for i in 0..<total { try writer.write(source.render(frameIndex: i)); progress(i + 1, total) }
            }
            try writer.finish()
            return GenerateReport(output: path, kind: "video", pattern: pattern.rawValue, units: total,
                                  seconds: Double(total) / frameRate, bytes: writer.fileBytes)
        case "wav", "opus", "ogg":
            let total = Int(seconds * Double(conferSampleRate))
            var source = ToneSource(index: index, channels: channels, pattern: .speech, seed: seed)
            let writer = try AudioFileWriter(path: path, channels: channels, bitrate: nil)
            var written = 0
            var frame = AudioFrame(silenceOf: 960, channels: channels)
            while written < total {
                let n = min(960, total - written)
                if n != frame.frameCount { frame = AudioFrame(silenceOf: n, channels: channels) }
                source.fill(into: &frame)
                try writer.write(frame)
                written += n
                progress(written, total)
            }
            try writer.finish()
            return GenerateReport(output: path, kind: "audio",
                                  pattern: "tone \(Int(ToneSource.frequency(forIndex: index))) Hz with talk spurts",
                                  units: written, seconds: Double(written) / Double(conferSampleRate), bytes: writer.fileBytes)
        default:
            throw JobError(.invalidOptions, "cannot generate '\(path)': use .y4m for video, .wav or .opus for audio")
        }
    }
}
