package import ConferMedia
import ConferCodecs


/// Where participant 1's composite is written: the stream exactly as it arrived (.ivf for
/// VP8/VP9, .h264 for H.264 — no second encode, no second loss of quality), or the pictures
/// it rendered (.y4m).
package final class CompositeFileWriter {
    private enum Sink {
        case pictures(VideoFileWriter)
        case ivf(IVFWriter)
        case annexB(AnnexBWriter)
    }

    private let sink: Sink
    /// The raw file's picture size; a composite that arrived smaller (encoded below the
    /// canvas while the bitrate was low) is scaled back up to it, as a display would.
    private let width: Int
    private let height: Int
    private var upscalePool: FramePool?
    /// Frames (encoded or rendered) written so far.
    package private(set) var framesWritten = 0

    /// A file at `path` for a `width` × `height` composite coded with `codec`.
    ///
    /// - Throws: a ``JobError`` when the extension cannot hold that codec, or the file's error.
    package init(path: String, codec: Codec, width: Int, height: Int, frameRate: Double) throws {
        self.width = width
        self.height = height
        switch fileExtension(path) {
        case "y4m":
            sink = .pictures(try VideoFileWriter(path: path, codec: nil, settings: VideoEncoderSettings(
                width: width, height: height, frameRate: frameRate)))
        case "ivf":
            guard codec == .vp8 || codec == .vp9 else {
                throw JobError(.invalidOptions, "IVF cannot hold \(codec) video: write \(path) as .h264 or .y4m")
            }
            sink = .ivf(try IVFWriter(sink: try FileByteSink(path: path), header: IVFHeader(
                codec: codec, width: width, height: height, timebaseNumerator: 1, timebaseDenominator: 90_000)))
        case "h264", "264":
            guard codec == .h264 else { throw JobError(.invalidOptions, "a .h264 file cannot hold \(codec) video: write \(path) as .ivf or .y4m") }
            sink = .annexB(AnnexBWriter(sink: try FileByteSink(path: path)))
        default:
            throw JobError(.invalidOptions, "cannot write video to '\(path)': use .ivf (VP8/VP9), .h264 (H.264) or .y4m (raw)")
        }
    }

    /// Whether the file takes encoded frames (else rendered pictures).
    package var takesEncodedFrames: Bool {
        if case .pictures = sink { false } else { true }
    }

    /// Writes a rendered picture (raw files only; ignored otherwise).
    package func write(picture: VideoFrame) throws {
        guard case .pictures(let writer) = sink else { return }
        if picture.width != width || picture.height != height {
            let pool = upscalePool ?? FramePool(layout: FrameLayout(width: width, height: height), capacity: 2)
            upscalePool = pool
            try writer.write(try VideoScaler(filter: .bilinear).scaled(picture, using: pool))
        } else {
            try writer.write(picture)
        }
        framesWritten += 1
    }

    /// Writes a received encoded frame (encoded files only; ignored otherwise).
    package func write(encoded: EncodedFrame) throws {
        switch sink {
        case .pictures: return
        case .ivf(let writer):
            // IVF cannot hold a frame above its size limit; such a frame is not a composite.
            guard encoded.data.count <= IVFHeader.maxFrameSize else { return }
            try writer.write(encoded)
        case .annexB(let writer): try writer.write(encoded)
        }
        framesWritten += 1
    }

    /// Completes the file.
    package func finish() throws {
        switch sink {
        case .pictures(let writer): try writer.finish()
        case .ivf(let writer): try writer.finish()
        case .annexB(let writer): try writer.finish()
        }
    }
}
