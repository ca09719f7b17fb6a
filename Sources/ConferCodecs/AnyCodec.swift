public import ConferMedia

/// Any video encoder, chosen by codec at run time.
///
/// Pipelines pick a codec from a setting; this box hides whether the encoder underneath is
/// a class (libvpx) or a non-copyable value (x264), and erases its error type.
public final class AnyVideoEncoder {
    private let box: any VideoEncoderBox

    /// An encoder for `codec` with `settings`: libvpx for VP8 and VP9, x264 for H.264.
    ///
    /// `allowsFrameDropping` lets libvpx's rate control skip frames to hold the bitrate
    /// (x264 never drops); benchmarks turn it off so every frame is encoded.
    public init(codec: Codec, settings: VideoEncoderSettings, allowsFrameDropping: Bool = true) throws {
        switch codec {
        case .vp8, .vp9:
            box = ConcreteVideoEncoder(try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: allowsFrameDropping))
        case .h264: box = ConcreteVideoEncoder(try X264Encoder(settings: settings))
        case .opus: throw CodecConfigurationError("opus is an audio codec; it cannot encode video")
        }
    }

    /// The codec this encoder produces.
    public var codec: Codec { box.codec }
    /// The settings in force (the bitrate follows ``setBitrate(_:)``).
    public var settings: VideoEncoderSettings { box.settings }
    /// Changes the target bitrate from the next frame on.
    public func setBitrate(_ bitsPerSecond: Int) throws { try box.setBitrate(bitsPerSecond, baseLayerShare: settings.baseLayerShare) }
    /// Changes the target bitrate and the base temporal layer's share of it from the next frame on.
    public func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws {
        try box.setBitrate(bitsPerSecond, baseLayerShare: baseLayerShare)
    }
    /// Caps keyframes at about `bits` (nil: the encoder's own cap; x264 has none).
    public func setKeyframeSizeLimit(_ bits: Int?) throws { try box.setKeyframeSizeLimit(bits) }
    /// Changes the number of temporal layers from the next frame on (VP8; others ignore it).
    public func setTemporalLayers(_ layers: Int) throws { try box.setTemporalLayers(layers) }
    /// Makes the next encoded frame a keyframe.
    public func requestKeyframe() { box.requestKeyframe() }
    /// Encodes `frame` into `output`, reusing its buffers; false when rate control dropped it.
    public func encode(_ frame: VideoFrame, into output: inout EncodedFrame) throws -> Bool {
        try box.encode(frame, into: &output)
    }
}

/// Any video decoder, chosen by codec at run time.
public final class AnyVideoDecoder {
    private let box: any VideoDecoderBox

    /// A decoder for `codec`: libvpx for VP8 and VP9, libavcodec for H.264.
    public init(codec: Codec, threads: Int = 1) throws {
        switch codec {
        case .vp8, .vp9: box = ConcreteVideoDecoder(try VPXDecoder(codec: codec, threads: threads))
        case .h264: box = ConcreteVideoDecoder(try H264Decoder(threads: threads))
        case .opus: throw CodecConfigurationError("opus is an audio codec; it cannot decode video")
        }
    }

    /// The codec this decoder reads.
    public var codec: Codec { box.codec }
    /// Decodes one frame; nil when it produced no picture (for example while waiting for a keyframe).
    public func decode(_ frame: EncodedFrame) throws -> VideoFrame? { try box.decode(frame) }
    /// Ends the stream: the pictures still held back for reordering, in display order.
    public func flush() throws -> [VideoFrame] { try box.flush() }
}

/// A codec was asked for something it cannot do.
public struct CodecConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}

private protocol VideoEncoderBox: AnyObject {
    var codec: Codec { get }
    var settings: VideoEncoderSettings { get }
    func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws
    func setKeyframeSizeLimit(_ bits: Int?) throws
    func setTemporalLayers(_ layers: Int) throws
    func requestKeyframe()
    func encode(_ frame: VideoFrame, into output: inout EncodedFrame) throws -> Bool
}

private final class ConcreteVideoEncoder<E: VideoEncoder & ~Copyable>: VideoEncoderBox {
    var encoder: E
    init(_ encoder: consuming E) { self.encoder = encoder }
    var codec: Codec { encoder.codec }
    var settings: VideoEncoderSettings { encoder.settings }
    func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws {
        try encoder.setBitrate(bitsPerSecond, baseLayerShare: baseLayerShare)
    }
    func setKeyframeSizeLimit(_ bits: Int?) throws { try encoder.setKeyframeSizeLimit(bits) }
    func setTemporalLayers(_ layers: Int) throws { try encoder.setTemporalLayers(layers) }
    func requestKeyframe() { encoder.requestKeyframe() }
    func encode(_ frame: VideoFrame, into output: inout EncodedFrame) throws -> Bool { try encoder.encode(frame, into: &output) }
}

private protocol VideoDecoderBox: AnyObject {
    var codec: Codec { get }
    func decode(_ frame: EncodedFrame) throws -> VideoFrame?
    func flush() throws -> [VideoFrame]
}

private final class ConcreteVideoDecoder<D: VideoDecoder & ~Copyable>: VideoDecoderBox {
    var decoder: D
    init(_ decoder: consuming D) { self.decoder = decoder }
    var codec: Codec { decoder.codec }
    func decode(_ frame: EncodedFrame) throws -> VideoFrame? { try decoder.decode(frame) }
    func flush() throws -> [VideoFrame] { try decoder.flush() }
}
