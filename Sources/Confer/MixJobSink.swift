import ConferMedia
import ConferCodecs

/// Where composed canvases go: a file (encoded or raw), an encoder whose output is thrown
/// away (to measure encoding without writing), or nowhere (to measure compositing alone).
final class MixSink {
    private enum Target {
        case file(VideoFileWriter)
        case encoder(AnyVideoEncoder)
        case discard
    }
    private let target: Target
    private var encoded: EncodedFrame
    /// The codec frames are encoded with, or nil when they are not encoded.
    let codec: Codec?
    /// Frames handed to ``write(_:)``.
    private(set) var framesIn = 0
    private var discardedOut = 0
    private var discardedDrops = 0
    private var discardedKeyframes = 0
    private var discardedPayload = 0

    /// A sink writing to `path` (nil: write nothing, but encode when `options.codec` is set).
    init(path: String?, options: MixOptions) throws {
        let bitrate = (options.bitrateKbps ?? TranscodeOptions.defaultVideoBitrateKbps(width: options.width, height: options.height)) * 1000
        let settings = VideoEncoderSettings(width: options.width, height: options.height, frameRate: options.frameRate,
                                            bitrate: bitrate, threads: options.threads, speed: options.speed,
                                            errorResilient: true, keyframeInterval: options.keyframeInterval)
        if let path {
            let writer = try VideoFileWriter(path: path, codec: options.codec, settings: settings)
            target = .file(writer)
            codec = writer.codec
        } else if let requested = options.codec {
            target = .encoder(try AnyVideoEncoder(codec: requested, settings: settings))
            codec = requested
        } else {
            target = .discard
            codec = nil
        }
        encoded = EncodedFrame(codec: codec ?? .vp8)
        encoded.data.reserveCapacity(bitrate / 8)
    }

    /// Writes (or encodes, or drops) one canvas.
    func write(_ frame: VideoFrame) throws {
        framesIn += 1
        switch target {
        case .file(let writer):
            try writer.write(frame)
        case .encoder(let encoder):
            if try encoder.encode(frame, into: &encoded) {
                discardedOut += 1
                discardedPayload += encoded.data.count
                if encoded.isKeyframe { discardedKeyframes += 1 }
            } else {
                discardedDrops += 1
            }
        case .discard:
            discardedOut += 1
        }
    }

    /// Whether frames are dropped unencoded and unwritten.
    var isDiscarding: Bool { if case .discard = target { true } else { false } }

    /// Completes the file, if there is one.
    func finish() throws {
        if case .file(let writer) = target { try writer.finish() }
    }

    /// Frames written (encoded, when nothing is written).
    var framesOut: Int { if case .file(let writer) = target { writer.framesOut } else { discardedOut } }
    /// Frames rate control dropped.
    var framesDropped: Int { if case .file(let writer) = target { writer.framesDropped } else { discardedDrops } }
    /// Keyframes produced.
    var keyframes: Int { if case .file(let writer) = target { writer.keyframes } else { discardedKeyframes } }
    /// Compressed bytes produced.
    var payloadBytes: Int { if case .file(let writer) = target { writer.payloadBytes } else { discardedPayload } }
    /// Bytes in the file (0 when nothing is written).
    var fileBytes: Int { if case .file(let writer) = target { writer.fileBytes } else { 0 } }
}
