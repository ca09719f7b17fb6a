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
    /// With `encodes` false it makes no encoder of its own and takes frames encoded
    /// elsewhere through ``write(encoded:)`` (segment-parallel mixes).
    init(path: String?, options: MixOptions, encodes: Bool = true) throws {
        let bitrate = (options.bitrateKbps ?? TranscodeOptions.defaultVideoBitrateKbps(width: options.width, height: options.height)) * 1000
        let codec = try Self.codec(for: path, options: options)
        self.codec = codec
        let automatic = options.threads == nil && codec != nil && encodes
        initialThreads = !encodes ? 1 : options.threads
            ?? (codec == nil ? 1 : MixEncoderThreads.initial(probe: options.runningTasksProbe, realTime: options.realTimeProbe()))
        // Segment workers (the sink then only writes) encode for a file: variable bitrate,
        // every frame encoded, no error resilience (it costs bits, and a file loses nothing).
        // A one-stream mix keeps the real-time tuning it always had: with two threads,
        // libvpx's VP8 loses about 1 dB in variable-bitrate mode (measured on the 10 s grid
        // at 1.5 Mbit/s: 36.46 dB with one thread, 35.46 with two), and with one it is ~8 %
        // slower for its 0.7 dB, which would slow `--threads 1` against FFmpeg.
        let forFile = !encodes
        let settings = VideoEncoderSettings(width: options.width, height: options.height, frameRate: options.frameRate,
                                            bitrate: bitrate, threads: initialThreads, speed: options.speed,
                                            errorResilient: !forFile, keyframeInterval: options.keyframeInterval,
                                            rateControl: forFile ? .file : .realTime)
        self.settings = settings
        threadWatch = automatic && initialThreads > 1 ? MixEncoderThreads(probe: options.runningTasksProbe, realTime: options.realTimeProbe()) : nil
        encoder = encodes ? try codec.map { try AnyVideoEncoder(codec: $0, settings: settings) } : nil
        encoded = EncodedFrame(codec: codec ?? .vp8)
        if encoder != nil { encoded.data.reserveCapacity(bitrate / 8) }

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
            container = .ivf(try IVFWriter(sink: sink, header: VideoFileWriter.ivfHeader(
                codec: codec, width: options.width, height: options.height, fps: options.frameRate)))
        }
    }

    /// The codec a mix into `path` encodes with (nil: raw pictures): `options.codec`, or the
    /// container's natural one. Throws when the two do not fit.
    static func codec(for path: String?, options: MixOptions) throws -> Codec? {
        let codec = try path.map { try VideoFileWriter.codec(forPath: $0, requested: options.codec) } ?? options.codec
        if codec == .opus { throw JobError(.invalidOptions, "opus is an audio codec; mix video as vp8, vp9 or h264") }
        return codec
    }

    /// The settings the sink's encoder is (or would be) made with.
    var encoderSettings: VideoEncoderSettings { settings }

    /// Whether frames are dropped unencoded and unwritten.
    var isDiscarding: Bool {
        if case .none = container, codec == nil { true } else { false }
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
            try store(encoded)
        } else {
            framesDropped += 1
        }
        if threadWatch?.shouldDropToOneThread() == true { try dropToOneThread() }
    }

    /// Writes a frame encoded elsewhere (counted as one canvas in and one frame out).
    func write(encoded frame: EncodedFrame) throws {
        framesIn += 1
        try store(frame)
    }

    /// Counts an encoded frame and writes it to the container, if there is one.
    private func store(_ frame: EncodedFrame) throws {
        framesOut += 1
        payloadBytes += frame.data.count
        if frame.isKeyframe { keyframes += 1 }
        switch container {
        case .ivf(let writer): try writer.write(frame)
        case .annexB(let writer): try writer.write(frame)
        case .y4m, .none: break
        }
    }

    /// Counts `count` canvases that were encoded elsewhere but dropped by rate control.
    func countDropped(_ count: Int) {
        framesIn += count
        framesDropped += count
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
