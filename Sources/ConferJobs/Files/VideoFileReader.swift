public import ConferMedia
public import ConferCodecs

/// Pictures from a video file: Y4M frames as they are, IVF (VP8/VP9) and H.264 Annex-B
/// decoded. The format is found from the file's first bytes, not its name.
public final class VideoFileReader {
    private enum Source {
        case raw(Y4MReader)
        case ivf(IVFReader, AnyVideoDecoder)
        case annexB(AnnexBReader, AnyVideoDecoder)
    }
    private let source: Source
    private var encoded: EncodedFrame
    // Pictures the decoder released at the end of the file (held back for reordering).
    private var flushed: [VideoFrame] = []
    private var reachedEnd = false

    /// What the file is, as probed.
    public let info: MediaFileInfo
    /// The compressed codec, or nil for raw Y4M.
    public var codec: Codec? {
        switch source {
        case .raw: nil
        case .ivf(let reader, _): reader.header.codec
        case .annexB: .h264
        }
    }
    /// Frames per second (IVF's time base gives none reliably; the probe's rate or 30).
    public let frameRate: Double
    /// Compressed bytes read so far (0 for raw input).
    public private(set) var encodedBytesRead = 0
    /// Compressed frames read so far (0 for raw input).
    public private(set) var encodedFramesRead = 0
    /// Compressed frames the decoder produced no picture for (corrupt, or waiting for a keyframe).
    public private(set) var framesNotDecoded = 0

    /// Opens `path` for reading; `decoderThreads` applies to compressed input.
    public init(path: String, decoderThreads: Int = 1) throws {
        info = try MediaFileInfo.probe(path: path)
        switch info.format {
        case .y4m:
            let reader = try Y4MReader(path: path)
            source = .raw(reader)
            frameRate = reader.header.frameRate
            encoded = EncodedFrame(codec: .vp8)
        case .ivf:
            let reader = try IVFReader(path: path)
            source = .ivf(reader, try AnyVideoDecoder(codec: reader.header.codec, threads: decoderThreads))
            frameRate = info.frameRate ?? 30
            encoded = EncodedFrame(codec: reader.header.codec)
        case .h264:
            let reader = try AnnexBReader(path: path)
            source = .annexB(reader, try AnyVideoDecoder(codec: .h264, threads: decoderThreads))
            frameRate = info.frameRate ?? 30
            encoded = EncodedFrame(codec: .h264)
        case .wav, .oggOpus:
            throw JobError(.unsupportedFormat, "\(path) is audio (\(info.format.rawValue)); expected a video file (.y4m, .ivf or .h264)")
        }
    }

    /// Picture width.
    public var width: Int { info.width ?? 0 }
    /// Picture height.
    public var height: Int { info.height ?? 0 }
    /// Frames in the file, when the header or size tells.
    public var frameCount: Int? { info.frameCount }

    /// The next picture, or nil at the end of the file.
    public func next() throws -> VideoFrame? {
        switch source {
        case .raw(let reader):
            return try reader.next()
        case .ivf(let reader, let decoder):
            while !reachedEnd, try reader.read(into: &encoded) {
                if let frame = try decodeCounting(decoder) { return frame }
            }
            return try drain(decoder)
        case .annexB(let reader, let decoder):
            while !reachedEnd, try reader.read(into: &encoded) {
                if let frame = try decodeCounting(decoder) { return frame }
            }
            return try drain(decoder)
        }
    }

    private func drain(_ decoder: AnyVideoDecoder) throws -> VideoFrame? {
        if !reachedEnd {
            reachedEnd = true
            flushed = (try? decoder.flush()) ?? []
        }
        return flushed.isEmpty ? nil : flushed.removeFirst()
    }

    private func decodeCounting(_ decoder: AnyVideoDecoder) throws -> VideoFrame? {
        encodedFramesRead += 1
        encodedBytesRead += encoded.data.count
        // A frame the decoder rejects is counted and skipped: the decoder recovers at the next keyframe.
        let frame = try? decoder.decode(encoded)
        if frame == nil { framesNotDecoded += 1 }
        return frame
    }
}
