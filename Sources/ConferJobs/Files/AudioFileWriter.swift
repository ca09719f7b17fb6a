public import ConferMedia
import ConferCodecs

/// Writes 48 kHz audio to `.wav` (PCM16) or `.opus` (Ogg Opus: Confer's Opus encoder, paged with libogg).
public final class AudioFileWriter {
    private enum Sink {
        case wav(WAVWriter)
        case opus(OggOpusWriter)
    }
    private let sink: Sink
    private let bytesSink: FileByteSink
    /// Sample frames written.
    public private(set) var framesWritten = 0

    /// A writer of `channels`-channel audio to `path`; `bitrate` (bits/s) applies to Opus.
    public init(path: String, channels: Int, bitrate: Int?, complexity: Int? = nil) throws {
        switch fileExtension(path) {
        case "wav":
            bytesSink = try FileByteSink(path: path)
            sink = .wav(try WAVWriter(sink: bytesSink, channels: channels))
        case "opus", "ogg":
            bytesSink = try FileByteSink(path: path)
            sink = .opus(try OggOpusWriter(sink: bytesSink, channels: channels, bitrate: bitrate, complexity: complexity))
        default:
            throw JobError(.invalidOptions, "cannot write audio to '\(path)': use .wav (PCM) or .opus (Ogg Opus)")
        }
    }

    /// Whether the file is compressed (Opus).
    public var isCompressed: Bool { if case .opus = sink { true } else { false } }

    /// Appends `frame`.
    public func write(_ frame: AudioFrame) throws {
        switch sink {
        case .wav(let writer): try writer.write(frame)
        case .opus(let writer): try writer.write(frame)
        }
        framesWritten += frame.frameCount
    }

    /// Completes and closes the file.
    public func finish() throws {
        switch sink {
        case .wav(let writer): try writer.finish()
        case .opus(let writer): try writer.finish()
        }
        try bytesSink.close()
    }

    /// Bytes the file holds.
    public var fileBytes: Int { bytesSink.position }
}
