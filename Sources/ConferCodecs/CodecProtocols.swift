public import ConferMedia

/// Settings every video encoder understands.
/// What an encoder's rate control is tuned for.
public enum VideoRateControl: String, Sendable, Hashable, Codable {
    /// A network path (WebRTC's tuning): constant bitrate over a buffer of about a second,
    /// so the path sees a steady rate; quantizers stop at 52 (VP8) or 56 (VP9), and frames
    /// may be dropped to hold the rate when the encoder allows it.
    case realTime
    /// A file: variable bitrate with libvpx's defaults (a 6 s buffer, quantizers 4…63), as
    /// FFmpeg and GStreamer encode when asked for a bitrate, spending it where the picture
    /// needs it; every frame is encoded. x264 is the same in both (ABR within a VBV).
    case file
}

public struct VideoEncoderSettings: Sendable, Hashable, Codable {
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// Frames per second the encoder is fed.
    public var frameRate: Double
    /// Target bitrate in bits per second: held steady in real time, on average in a file.
    public var bitrate: Int
    /// Encoder threads (1 disables threading).
    public var threads: Int
    /// Speed/quality trade-off: libvpx `cpu-used` (VP8 −16…16, VP9 −9…9); for x264 a
    /// preset index where 0 is ultrafast.
    public var speed: Int
    /// Whether to make the stream robust to losses (libvpx error-resilient mode).
    public var errorResilient: Bool
    /// Most frames between keyframes (0: only on request or at the start).
    public var keyframeInterval: Int
    /// Real-time (the default) or file rate control.
    public var rateControl: VideoRateControl
    /// Temporal layers, 1…3 (VP8 and VP9; H.264 encodes one). With two, every other
    /// frame is an upper-layer frame nothing refers to; with three the pattern is
    /// 0, 2, 1, 2 as in libwebrtc, so a forwarder can halve or quarter the frame rate.
    public var temporalLayers: Int
    /// The share of ``bitrate`` the base layer gets (0.1…0.9); nil for libwebrtc's
    /// (60 % of two layers, 40 % of three). The middle layer of three gets a third of the rest.
    public var baseLayerShare: Double?
    /// The most temporal layers the encoder will be set to while it runs (1…3; nil: the
    /// starting ``temporalLayers``). VP9 then opens on libvpx's SVC path even with one layer
    /// to start with, so that turning layers on later costs no keyframe and every frame's
    /// reference is known (see ``VPXEncoder/setTemporalLayers(_:)``); VP8 needs no notice.
    public var maximumTemporalLayers: Int?

    /// Settings for a `width` × `height` stream, real-time unless `rateControl` says otherwise.
    public init(width: Int, height: Int, frameRate: Double = 30, bitrate: Int = 800_000, threads: Int = 1,
                speed: Int = 8, errorResilient: Bool = true, keyframeInterval: Int = 0,
                rateControl: VideoRateControl = .realTime, temporalLayers: Int = 1, baseLayerShare: Double? = nil,
                maximumTemporalLayers: Int? = nil) {
        self.maximumTemporalLayers = maximumTemporalLayers
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.threads = threads
        self.speed = speed
        self.errorResilient = errorResilient
        self.keyframeInterval = keyframeInterval
        self.rateControl = rateControl
        self.temporalLayers = temporalLayers
        self.baseLayerShare = baseLayerShare
    }

    /// Each temporal layer's bitrate with the layers below it, in bit/s, lowest first
    /// (one entry, ``bitrate``, without layers).
    public var cumulativeLayerBitrates: [Int] {
        let shares: [Double]
        switch temporalLayers {
        case 2:
            shares = [min(max(baseLayerShare ?? 0.6, 0.1), 0.9), 1]
        case 3:
            let base = min(max(baseLayerShare ?? 0.4, 0.1), 0.9)
            shares = [base, base + (1 - base) / 3, 1]
        default:
            shares = [1]
        }
        return shares.map { Int((Double(bitrate) * $0).rounded()) }
    }
}

/// Compresses pictures. One owner at a time: encoders are not `Sendable`.
public protocol VideoEncoder: ~Copyable {
    /// The library's error type.
    associatedtype Failure: Error
    /// The codec this encoder produces.
    var codec: Codec { get }
    /// The settings in force.
    var settings: VideoEncoderSettings { get }
    /// Changes the target bitrate while running; takes effect from the next frame.
    mutating func setBitrate(_ bitsPerSecond: Int) throws(Failure)
    /// Changes the target bitrate and the base temporal layer's share of it (see
    /// ``VideoEncoderSettings/baseLayerShare``); encoders without layers take the bitrate only.
    mutating func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws(Failure)
    /// Caps keyframes at about `bits` (nil: the encoder's own cap); encoders without such a
    /// control ignore it.
    mutating func setKeyframeSizeLimit(_ bits: Int?) throws(Failure)
    /// Changes the number of temporal layers from the next frame on; encoders without
    /// temporal layers ignore it.
    mutating func setTemporalLayers(_ layers: Int) throws(Failure)
    /// Asks for the next encoded frame to be a keyframe.
    mutating func requestKeyframe()
    /// Encodes `frame` into `output`, reusing its buffers. Returns false when rate
    /// control dropped the frame (nothing was written).
    mutating func encode(_ frame: VideoFrame, into output: inout EncodedFrame) throws(Failure) -> Bool
}

extension VideoEncoder where Self: ~Copyable {
    /// Takes the bitrate only: the encoder has no temporal layers.
    public mutating func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws(Failure) {
        try setBitrate(bitsPerSecond)
    }

    /// Ignores the limit: the encoder has no keyframe size control.
    public mutating func setKeyframeSizeLimit(_ bits: Int?) throws(Failure) {}

    /// Ignores it: the encoder makes one layer.
    public mutating func setTemporalLayers(_ layers: Int) throws(Failure) {}

    /// Encodes `frame` into a new ``EncodedFrame``; nil when rate control dropped it.
    public mutating func encode(_ frame: VideoFrame) throws(Failure) -> EncodedFrame? {
        var output = EncodedFrame(codec: codec)
        return try encode(frame, into: &output) ? output : nil
    }
}

/// Decompresses pictures. One owner at a time: decoders are not `Sendable`.
public protocol VideoDecoder: ~Copyable {
    /// The library's error type.
    associatedtype Failure: Error
    /// The codec this decoder reads.
    var codec: Codec { get }
    /// Decodes one frame. Returns nil when the decoder produced no picture for it
    /// (for example a frame it must skip until the next keyframe after corruption).
    mutating func decode(_ frame: EncodedFrame) throws(Failure) -> VideoFrame?
    /// Ends the stream and returns pictures still held back for reordering (H.264 with
    /// B-frames); decoders that never hold pictures back return none.
    mutating func flush() throws(Failure) -> [VideoFrame]
}

extension VideoDecoder where Self: ~Copyable {
    /// VP8, VP9 and real-time H.264 hold nothing back.
    public mutating func flush() throws(Failure) -> [VideoFrame] { [] }
}

/// Settings for an Opus encoder.
public struct AudioEncoderSettings: Sendable, Hashable, Codable {
    /// 1 or 2.
    public var channels: Int
    /// Target bitrate in bits per second.
    public var bitrate: Int
    /// Frame duration in milliseconds: 10, 20, 40 or 60.
    public var frameDurationMs: Int
    /// Encoder complexity 0…10.
    public var complexity: Int
    /// Whether to embed in-band forward error correction (LBRR) for the previous frame.
    public var inbandFEC: Bool
    /// Expected packet loss in percent; drives how much FEC Opus spends.
    public var expectedLossPercent: Int
    /// Discontinuous transmission: send almost nothing during silence.
    public var dtx: Bool

    /// Settings for a real-time voice stream.
    public init(channels: Int = 1, bitrate: Int = 32_000, frameDurationMs: Int = 20, complexity: Int = 9,
                inbandFEC: Bool = true, expectedLossPercent: Int = 5, dtx: Bool = false) {
        self.channels = channels
        self.bitrate = bitrate
        self.frameDurationMs = frameDurationMs
        self.complexity = complexity
        self.inbandFEC = inbandFEC
        self.expectedLossPercent = expectedLossPercent
        self.dtx = dtx
    }

    /// Samples per channel in one frame at 48 kHz.
    public var samplesPerFrame: Int { conferSampleRate * frameDurationMs / 1000 }
}

/// Compresses audio, one frame duration at a time.
public protocol AudioEncoder: ~Copyable {
    /// The library's error type.
    associatedtype Failure: Error
    /// The settings in force.
    var settings: AudioEncoderSettings { get }
    /// Changes the target bitrate while running.
    mutating func setBitrate(_ bitsPerSecond: Int) throws(Failure)
    /// Encodes exactly `settings.samplesPerFrame` samples per channel into `output`.
    mutating func encode(_ frame: AudioFrame, into output: inout EncodedFrame) throws(Failure)
}

/// Decompresses audio, concealing losses.
public protocol AudioDecoder: ~Copyable {
    /// The library's error type.
    associatedtype Failure: Error
    /// Output channel count.
    var channels: Int { get }
    /// Decodes one packet.
    mutating func decode(_ packet: EncodedFrame) throws(Failure) -> AudioFrame
    /// Synthesizes `durationMs` of audio for a lost packet (packet-loss concealment).
    mutating func concealLoss(durationMs: Int, timestamp: Timestamp) throws(Failure) -> AudioFrame
    /// Recovers a lost packet from the in-band FEC carried by the packet after it.
    mutating func decodeFEC(from next: EncodedFrame, durationMs: Int, timestamp: Timestamp) throws(Failure) -> AudioFrame
}
