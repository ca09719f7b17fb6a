import ConferMedia
import ConferCodecs

/// Where composed canvases go: a file (raw `.y4m`, or encoded into `.ivf` or `.h264`), an
/// encoder whose output is thrown away (to measure encoding without writing), or nowhere
/// (to measure compositing alone).
///
/// Owns its encoder rather than using ``VideoFileWriter`` so that it can swap it: with the
/// thread count left automatic, a two-thread encoder is replaced by a one-thread one (which
/// starts with a keyframe) when other work appears on the cores; see ``MixEncoderThreads``.
final class MixSink {
    private enum Container {
        case y4m(Y4MWriter)
        case ivf(IVFWriter)
        case annexB(AnnexBWriter)
        case none
    }
    private let container: Container
    private let bytes: FileByteSink?
    private var encoder: AnyVideoEncoder?
    private var settings: VideoEncoderSettings
    private var encoded: EncodedFrame
    /// Set while the thread count is automatic and the encoder still has two threads.
    private var threadWatch: MixEncoderThreads?

    /// The codec frames are encoded with, or nil when they are not encoded.
    let codec: Codec?
    /// Frames handed to ``write(_:)``.
    private(set) var framesIn = 0
    /// Frames written (or encoded, when nothing is written).
    private(set) var framesOut = 0
    /// Frames rate control dropped.
    private(set) var framesDropped = 0
    /// Keyframes produced.
    private(set) var keyframes = 0
    /// Compressed bytes produced.
    private(set) var payloadBytes = 0
    /// Encoder threads at the start.
    let initialThreads: Int
    /// The frame at which the encoder dropped to one thread, if it did.
    private(set) var droppedToOneThreadAt: Int?

    /// A sink writing to `path` (nil: write nothing, but encode when `options.codec` is set).
    init(path: String?, options: MixOptions) throws {
        let bitrate = (options.bitrateKbps ?? TranscodeOptions.defaultVideoBitrateKbps(width: options.width, height: options.height)) * 1000
        var codec = options.codec
        if let path {
            switch fileExtension(path) {
            case "y4m":
                guard codec == nil else { throw JobError("\(path) is raw video; drop --codec or write .ivf (vp8, vp9) or .h264") }
            case "ivf":
                codec = codec ?? .vp8
                guard codec == .vp8 || codec == .vp9 else { throw JobError("IVF holds VP8 or VP9; write \(codec!) to .h264 instead") }
            case "h264", "264":
                codec = codec ?? .h264
                guard codec == .h264 else { throw JobError(".h264 holds H.264; write \(codec!) to .ivf instead") }
            default:
                throw JobError("cannot write video to '\(path)': use .y4m (raw), .ivf (VP8/VP9) or .h264 (H.264)")
            }
        }
        if codec == .opus { throw JobError("opus is an audio codec; mix video as vp8, vp9 or h264") }
        self.codec = codec
        let automatic = options.threads == nil && codec != nil
        initialThreads = options.threads ?? (codec == nil ? 1 : MixEncoderThreads.initial(probe: options.runningTasksProbe, realTime: options.realTimeProbe()))
        let settings = VideoEncoderSettings(width: options.width, height: options.height, frameRate: options.frameRate,
                                            bitrate: bitrate, threads: initialThreads, speed: options.speed,
                                            errorResilient: true, keyframeInterval: options.keyframeInterval)
        self.settings = settings
        threadWatch = automatic && initialThreads > 1 ? MixEncoderThreads(probe: options.runningTasksProbe, realTime: options.realTimeProbe()) : nil
        encoder = try codec.map { try AnyVideoEncoder(codec: $0, settings: settings) }
        encoded = EncodedFrame(codec: codec ?? .vp8)
        encoded.data.reserveCapacity(bitrate / 8)

        guard let path else {
            bytes = nil
            container = .none
            return
        }
        let sink = try FileByteSink(path: path)
        bytes = sink
        let rate = VideoFileWriter.rational(options.frameRate)
        switch codec {
        case nil:
            container = .y4m(try Y4MWriter(sink: sink, header: Y4MHeader(
                width: options.width, height: options.height, frameRateNumerator: rate.0, frameRateDenominator: rate.1)))
        case .h264?:
            container = .annexB(AnnexBWriter(sink: sink))
        case let codec?:
            container = .ivf(try IVFWriter(sink: sink, header: IVFHeader(codec: codec, width: options.width, height: options.height)))
        }
    }

    /// Whether frames are dropped unencoded and unwritten.
    var isDiscarding: Bool {
        if case .none = container, encoder == nil { true } else { false }
    }

    /// Encoder threads now.
    var threads: Int { settings.threads }

    /// Writes (or encodes, or drops) one canvas.
    func write(_ frame: VideoFrame) throws {
        framesIn += 1
        guard let encoder else {
            if case .y4m(let writer) = container { try writer.write(frame) }
            framesOut += 1
            return
        }
        if try encoder.encode(frame, into: &encoded) {
            framesOut += 1
            payloadBytes += encoded.data.count
            if encoded.isKeyframe { keyframes += 1 }
            switch container {
            case .ivf(let writer): try writer.write(encoded)
            case .annexB(let writer): try writer.write(encoded)
            case .y4m, .none: break
            }
        } else {
            framesDropped += 1
        }
        if threadWatch?.shouldDropToOneThread() == true { try dropToOneThread() }
    }

    /// Replaces the encoder with a one-thread one; its first frame is a keyframe, so the
    /// stream stays decodable across the switch.
    private func dropToOneThread() throws {
        threadWatch = nil
        settings.threads = 1
        if let codec { encoder = try AnyVideoEncoder(codec: codec, settings: settings) }
        droppedToOneThreadAt = framesIn
    }

    /// Completes the file, if there is one.
    func finish() throws {
        switch container {
        case .y4m(let writer): try writer.finish()
        case .ivf(let writer): try writer.finish()
        case .annexB(let writer): try writer.finish()
        case .none: break
        }
        try bytes?.close()
    }

    /// Bytes in the file (0 when nothing is written).
    var fileBytes: Int { bytes?.position ?? 0 }
}
