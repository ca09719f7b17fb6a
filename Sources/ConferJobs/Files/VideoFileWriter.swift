public import ConferMedia
public import ConferCodecs

/// Writes pictures to a file: raw to `.y4m`, or encoded to `.ivf` (VP8/VP9) or `.h264`
/// (Annex-B), choosing the container from the file name.
public final class VideoFileWriter {
    private enum Sink {
        case raw(Y4MWriter)
        case ivf(AnyVideoEncoder, IVFWriter)
        case annexB(AnyVideoEncoder, AnnexBWriter)
    }
    private let sink: Sink
    private var encoded: EncodedFrame
    private let bytesSink: FileByteSink

    /// The codec written, or nil for raw Y4M.
    public let codec: Codec?
    /// Frames handed to ``write(_:)``.
    public private(set) var framesIn = 0
    /// Frames written to the file.
    public private(set) var framesOut = 0
    /// Frames the encoder's rate control dropped.
    public private(set) var framesDropped = 0
    /// Keyframes written.
    public private(set) var keyframes = 0
    /// Compressed payload bytes written (frame data, without container headers).
    public private(set) var payloadBytes = 0

    /// The codec a file name implies when none is asked for: `.ivf` → VP8, `.h264` → H.264.
    public static func defaultCodec(forPath path: String) -> Codec? {
        switch fileExtension(path) {
        case "ivf": .vp8
        case "h264", "264": .h264
        default: nil
        }
    }

    /// A writer to `path` for pictures of `width` × `height` at `frameRate`.
    ///
    /// `settings` apply when the file is compressed; `codec` must fit the extension
    /// (VP8/VP9 in `.ivf`, H.264 in `.h264`).
    public init(path: String, codec requested: Codec?, settings: VideoEncoderSettings) throws {
        let ext = fileExtension(path)
        let codec = try Self.codec(forPath: path, requested: requested)
        self.codec = codec
        bytesSink = try FileByteSink(path: path)
        let rate = Self.rational(settings.frameRate)
        switch (ext, codec) {
        case ("y4m", _):
            sink = .raw(try Y4MWriter(sink: bytesSink, header: Y4MHeader(
                width: settings.width, height: settings.height, frameRateNumerator: rate.0, frameRateDenominator: rate.1)))
        case ("ivf", let codec?):
            sink = .ivf(try AnyVideoEncoder(codec: codec, settings: settings),
                        try IVFWriter(sink: bytesSink, header: Self.ivfHeader(codec: codec, width: settings.width,
                                                                              height: settings.height, fps: settings.frameRate)))
        default:
            sink = .annexB(try AnyVideoEncoder(codec: .h264, settings: settings), AnnexBWriter(sink: bytesSink))
        }
        encoded = EncodedFrame(codec: codec ?? .vp8)
        encoded.data.reserveCapacity(settings.bitrate / 8)
    }

    /// Writes (encoding first when the file is compressed) one picture.
    public func write(_ frame: VideoFrame) throws {
        framesIn += 1
        switch sink {
        case .raw(let writer):
            try writer.write(frame)
            framesOut += 1
        case .ivf(let encoder, let writer):
            if try encoder.encode(frame, into: &encoded) { try writer.write(encoded); count(encoded) } else { framesDropped += 1 }
        case .annexB(let encoder, let writer):
            if try encoder.encode(frame, into: &encoded) { try writer.write(encoded); count(encoded) } else { framesDropped += 1 }
        }
    }

    /// Asks the encoder for a keyframe next (no effect on raw output).
    public func requestKeyframe() {
        switch sink {
        case .raw: break
        case .ivf(let encoder, _), .annexB(let encoder, _): encoder.requestKeyframe()
        }
    }

    /// Completes the file (patching headers that need the final counts) and closes it.
    public func finish() throws {
        switch sink {
        case .raw(let writer): try writer.finish()
        case .ivf(_, let writer): try writer.finish()
        case .annexB(_, let writer): try writer.finish()
        }
        try bytesSink.close()
    }

    /// Bytes the file holds (container included).
    public var fileBytes: Int { bytesSink.position }

    private func count(_ frame: EncodedFrame) {
        framesOut += 1
        payloadBytes += frame.data.count
        if frame.isKeyframe { keyframes += 1 }
    }

    /// A frame rate as a fraction (29.97 → 30000/1001).
    static func rational(_ fps: Double) -> (Int, Int) {
        if abs(fps - fps.rounded()) < 1e-6 { return (Int(fps.rounded()), 1) }
        return (Int((fps * 1001).rounded()), 1001)
    }

    /// The codec a video file at `path` holds: `requested`, or the container's natural one
    /// (nil for raw `.y4m`). Throws when the two do not fit or the extension is not a video file's.
    static func codec(forPath path: String, requested: Codec?) throws -> Codec? {
        switch fileExtension(path) {
        case "y4m":
            guard requested == nil else { throw JobError(.invalidOptions, "\(path) is raw video; drop --codec or write .ivf (vp8, vp9) or .h264") }
            return nil
        case "ivf":
            let codec = requested ?? .vp8
            guard codec == .vp8 || codec == .vp9 else { throw JobError(.invalidOptions, "IVF holds VP8 or VP9; write \(codec) to .h264 instead") }
            return codec
        case "h264", "264":
            let codec = requested ?? .h264
            guard codec == .h264 else { throw JobError(.invalidOptions, ".h264 holds H.264; write \(codec) to .ivf instead") }
            return codec
        default:
            throw JobError(.invalidOptions, "cannot write video to '\(path)': use .y4m (raw), .ivf (VP8/VP9) or .h264 (H.264)")
        }
    }

    /// An IVF header for constant-rate `codec` video at `fps`: one tick per frame where the
    /// rate is whole or NTSC-style (n × 1000 / 1001), as libvpx and FFmpeg write IVF, so both
    /// read the right frame rate and length; otherwise 90 kHz ticks.
    static func ivfHeader(codec: Codec, width: Int, height: Int, fps: Double) -> IVFHeader {
        let (num, den) = rational(fps)
        let exact = abs(Double(num) / Double(den) - fps) < 1e-6
        return exact ? IVFHeader(codec: codec, width: width, height: height, timebaseNumerator: den, timebaseDenominator: num)
            : IVFHeader(codec: codec, width: width, height: height)
    }
}
