public import ConferMedia

/// A video encoder whose picture size follows its bitrate: pictures arrive at the full
/// size and are encoded at the size a ``VideoResolutionLadder`` chooses for the bitrate,
/// scaled down (libyuv box filter) while that is smaller. The composite and each
/// participant's camera encode through one of these, so a falling bitrate costs
/// sharpness before frame rate on both.
///
/// A size change replaces the encoder; the new one's first frame is a keyframe, which
/// every receiver's decoder needs at a new size anyway. Receivers scale what they decode
/// to their views, so nothing else changes for them.
public final class ScalingVideoEncoder {
    /// The full size and everything else the encoders are made with.
    public let settings: VideoEncoderSettings
    /// Whether rate control may still skip frames (below the smallest step it must).
    public let allowsFrameDropping: Bool
    private var encoder: AnyVideoEncoder
    /// The sizes and the switching rules; nil when the size is fixed.
    public private(set) var ladder: VideoResolutionLadder?
    /// Pictures scaled to the ladder's step while that is smaller than the full size.
    private var pool: FramePool?
    private let scaler = VideoScaler(filter: .box)
    /// The bitrate the encoder runs at, in bit/s.
    public private(set) var bitrate: Int
    /// The base temporal layer's share of ``bitrate`` (nil: the encoder's default).
    public private(set) var baseLayerShare: Double?

    /// Pictures left out to halve the frame rate (the ladder's frame-rate step).
    public private(set) var framesSkippedForFrameRate = 0
    /// The capture time of the last picture handed to the encoder.
    private var lastEncodedAt: Timestamp?

    /// An encoder for `settings` (its size is the full size, its bitrate the start),
    /// following the bitrate with a ladder when `adaptsResolution`; with
    /// `reducesFrameRate` too, the ladder ends in a half-rate step (see
    /// ``VideoResolutionLadder``).
    public init(codec: Codec, settings: VideoEncoderSettings, allowsFrameDropping: Bool = true,
                adaptsResolution: Bool = true, reducesFrameRate: Bool = false) throws {
        self.settings = settings
        self.allowsFrameDropping = allowsFrameDropping
        bitrate = settings.bitrate
        baseLayerShare = settings.baseLayerShare
        temporalLayers = settings.temporalLayers
        if adaptsResolution {
            ladder = VideoResolutionLadder(width: settings.width, height: settings.height, frameRate: settings.frameRate,
                                           startBitrate: settings.bitrate, reducesFrameRate: reducesFrameRate)
        }
        let size = ladder.map { ($0.current.width, $0.current.height) } ?? (settings.width, settings.height)
        encoder = try Self.makeEncoder(codec: codec, settings: settings, size: size, bitrate: settings.bitrate,
                                       allowsFrameDropping: allowsFrameDropping)
        pool = Self.pool(for: size, full: settings)
    }

    /// The codec.
    public var codec: Codec { encoder.codec }

    /// The size pictures are encoded at now.
    public var encodedSize: (width: Int, height: Int) {
        ladder.map { ($0.current.width, $0.current.height) } ?? (settings.width, settings.height)
    }

    /// How many times the encoded size changed (the ladder's frame-rate step is not a size).
    public private(set) var sizeChanges = 0

    /// Sets the target bitrate (bit/s); the size follows it from the next frame.
    public func setBitrate(_ bitsPerSecond: Int) throws {
        try setBitrate(bitsPerSecond, baseLayerShare: baseLayerShare)
    }

    /// Sets the target bitrate (bit/s) and the base temporal layer's share of it.
    public func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws {
        try encoder.setBitrate(bitsPerSecond, baseLayerShare: baseLayerShare)
        bitrate = bitsPerSecond
        self.baseLayerShare = baseLayerShare
    }

    /// Caps keyframes at about `bits` (nil: the encoder's own cap), for this and later sizes.
    public func setKeyframeSizeLimit(_ bits: Int?) throws {
        try encoder.setKeyframeSizeLimit(bits)
        keyframeSizeLimit = bits
    }

    /// Changes the number of temporal layers from the next frame on, for this and later sizes.
    public func setTemporalLayers(_ layers: Int) throws {
        try encoder.setTemporalLayers(layers)
        temporalLayers = layers
    }

    /// The temporal layers encoded now.
    public private(set) var temporalLayers: Int

    /// The keyframe size cap asked for, in bits.
    public private(set) var keyframeSizeLimit: Int?

    /// Makes the next frame a keyframe.
    public func requestKeyframe() { encoder.requestKeyframe() }

    /// The frame rate encoded now: the settings' own, or half of it on the ladder's frame-rate step.
    public var encodedFrameRate: Double { settings.frameRate / Double(ladder?.current.frameRateDivisor ?? 1) }

    /// Encodes `frame` (at the full size), captured or composed at `now`, into `output`
    /// at the size the bitrate affords; false when rate control skipped it, or when the
    /// ladder's frame-rate step leaves it out (counted in ``framesSkippedForFrameRate``).
    public func encode(_ frame: VideoFrame, at now: Timestamp, into output: inout EncodedFrame) throws -> Bool {
        if var ladder {
            let previous = ladder.current
            let step = ladder.update(bitrate: bitrate, at: now)
            self.ladder = ladder
            if let step, step.width != previous.width || step.height != previous.height {
                sizeChanges += 1
                let size = (step.width, step.height)
                var current = settings
                current.baseLayerShare = baseLayerShare
                current.temporalLayers = temporalLayers
                encoder = try Self.makeEncoder(codec: encoder.codec, settings: current, size: size, bitrate: bitrate,
                                               allowsFrameDropping: allowsFrameDropping)
                pool = Self.pool(for: size, full: settings)
                try encoder.setKeyframeSizeLimit(keyframeSizeLimit)
            }
            // Every other picture by capture time (within half an interval, as capture
            // clocks wobble); libvpx reads the frame rate from the timestamps it gets.
            let divisor = ladder.current.frameRateDivisor
            if divisor > 1, let last = lastEncodedAt,
               (frame.timestamp - last).seconds < (Double(divisor) - 0.5) / max(settings.frameRate, 1) {
                framesSkippedForFrameRate += 1
                return false
            }
        }
        lastEncodedAt = frame.timestamp
        guard let pool else { return try encoder.encode(frame, into: &output) }
        return try encoder.encode(try scaler.scaled(frame, using: pool), into: &output)
    }

    private static func makeEncoder(codec: Codec, settings: VideoEncoderSettings, size: (Int, Int), bitrate: Int,
                                    allowsFrameDropping: Bool) throws -> AnyVideoEncoder {
        var sized = settings
        sized.width = size.0
        sized.height = size.1
        sized.bitrate = bitrate
        return try AnyVideoEncoder(codec: codec, settings: sized, allowsFrameDropping: allowsFrameDropping)
    }

    /// Frames for pictures scaled to `size`, or nil when that is the full size.
    private static func pool(for size: (Int, Int), full: VideoEncoderSettings) -> FramePool? {
        size == (full.width, full.height) ? nil : FramePool(layout: FrameLayout(width: size.0, height: size.1), capacity: 2)
    }
}
