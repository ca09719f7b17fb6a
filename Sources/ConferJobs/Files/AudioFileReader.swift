public import ConferMedia
public import ConferCodecs

/// 48 kHz audio from a file: WAV (resampled to 48 kHz when needed) or Ogg Opus (decoded).
public final class AudioFileReader {
    private enum Source {
        case wav(WAVReader)
        case opus(OggOpusReader)
    }
    private let source: Source
    /// What the file is, as probed.
    public let info: MediaFileInfo
    /// Channels of the audio produced (1 or 2).
    public let channels: Int

    /// Opens `path` for reading.
    public init(path: String) throws {
        info = try MediaFileInfo.probe(path: path)
        switch info.format {
        case .wav:
            let reader = try WAVReader(path: path)
            source = .wav(reader)
            channels = reader.info.channels
        case .oggOpus:
            let reader = try OggOpusReader(path: path)
            source = .opus(reader)
            channels = reader.channels
        case .y4m, .ivf, .h264:
            throw JobError(.unsupportedFormat, "\(path) is video (\(info.format.rawValue)); expected an audio file (.wav or .opus)")
        }
    }

    /// Sample frames at 48 kHz in the whole file, when known.
    public var frameCount: Int? {
        switch source {
        case .wav(let reader): reader.outputFrameCount
        case .opus(let reader): reader.frameCount
        }
    }

    /// Reads up to `frameCount` samples per channel into `frame`; false at the end.
    public func read(into frame: inout AudioFrame, frameCount: Int) throws -> Bool {
        switch source {
        case .wav(let reader): try reader.read(into: &frame, frameCount: frameCount)
        case .opus(let reader): try reader.read(into: &frame, frameCount: frameCount)
        }
    }
}
