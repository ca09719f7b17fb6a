
/// The codecs Confer encodes and decodes.
public enum Codec: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// VP8 (libvpx).
    case vp8
    /// VP9 (libvpx).
    case vp9
    /// H.264 constrained baseline (x264 to encode, libavcodec to decode).
    case h264
    /// Opus (libopus).
    case opus

    /// Whether the codec carries video.
    public var isVideo: Bool { self != .opus }
    /// The RTP clock rate the codec uses (RFC 7587, 7741, 6184, 9628).
    public var rtpClockRate: Int { isVideo ? 90_000 : 48_000 }
    public var description: String { rawValue }
}

/// What RTP's VP8 payload descriptor needs to know about a frame (RFC 7741 §4.2).
public struct VP8FrameInfo: Hashable, Sendable, Codable {
    /// The 15-bit picture id, increasing by one per frame.
    public var pictureID: UInt16
    /// Temporal layer index (0 when temporal scalability is off).
    public var temporalLayer: UInt8
    /// Whether the frame depends only on the base layer (the "Y" layer-sync bit).
    public var layerSync: Bool
    /// TL0PICIDX: increments on each base-layer frame.
    public var tl0PictureIndex: UInt8
    /// Byte offsets in `EncodedFrame.data` where each DCT token partition starts;
    /// the first is the frame header partition (offset 0).
    public var partitionOffsets: [Int]

    /// Info for one VP8 frame.
    public init(pictureID: UInt16, temporalLayer: UInt8 = 0, layerSync: Bool = false,
                tl0PictureIndex: UInt8 = 0, partitionOffsets: [Int] = [0]) {
        self.pictureID = pictureID
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.tl0PictureIndex = tl0PictureIndex
        self.partitionOffsets = partitionOffsets
    }
}

/// What RTP's VP9 payload descriptor needs to know about a frame (RFC 9628 §4.2).
public struct VP9FrameInfo: Hashable, Sendable, Codable {
    /// The 15-bit picture id.
    public var pictureID: UInt16
    /// Spatial layer index.
    public var spatialLayer: UInt8
    /// Temporal layer index.
    public var temporalLayer: UInt8
    /// Whether the frame may be decoded by switching up to this temporal layer.
    public var switchingUpPoint: Bool
    /// Whether the frame predicts from a previous picture (the "P" bit); false on keyframes.
    public var interPicturePredicted: Bool
    /// TL0PICIDX for non-flexible mode.
    public var tl0PictureIndex: UInt8
    /// How many pictures back the one picture this frame predicts from is (P_DIFF in flexible
    /// mode): known when the encoder pins the references, as with temporal layers; nil when
    /// unknown or the frame predicts from nothing.
    public var referenceDistance: UInt8?

    /// Info for one VP9 frame.
    public init(pictureID: UInt16, spatialLayer: UInt8 = 0, temporalLayer: UInt8 = 0,
                switchingUpPoint: Bool = false, interPicturePredicted: Bool, tl0PictureIndex: UInt8 = 0,
                referenceDistance: UInt8? = nil) {
        self.referenceDistance = referenceDistance
        self.pictureID = pictureID
        self.spatialLayer = spatialLayer
        self.temporalLayer = temporalLayer
        self.switchingUpPoint = switchingUpPoint
        self.interPicturePredicted = interPicturePredicted
        self.tl0PictureIndex = tl0PictureIndex
    }
}

/// A compressed frame: an access unit of video or one Opus packet.
///
/// It carries what containers and RTP need later: codec, keyframe flag, timestamps,
/// the picture size, VP8/VP9 picture ids and layer info, H.264 NAL unit boundaries.
/// Encoders can write into a caller's `EncodedFrame` so its buffers are reused and a
/// steady-state encode allocates nothing.
public struct EncodedFrame: Sendable {
    /// Which codec produced the bitstream.
    public var codec: Codec
    /// The bitstream: a VP8/VP9 frame, an H.264 access unit in Annex-B form, or one Opus packet.
    public var data: [UInt8]
    /// Whether a decoder can start here (an IDR / intra frame). Always true for Opus.
    public var isKeyframe: Bool
    /// Presentation time of the frame (of its first sample, for audio).
    public var timestamp: Timestamp
    /// How long the frame lasts.
    public var duration: TimeDelta
    /// Picture width (0 for audio).
    public var width: Int
    /// Picture height (0 for audio).
    public var height: Int
    /// VP8 descriptor information, for VP8 frames.
    public var vp8: VP8FrameInfo?
    /// VP9 descriptor information, for VP9 frames.
    public var vp9: VP9FrameInfo?
    /// Byte ranges of each NAL unit's payload in `data` (after its start code), for H.264.
    public var nalUnits: [Range<Int>]

    /// A frame of `codec` holding `data`.
    public init(codec: Codec, data: [UInt8] = [], isKeyframe: Bool = false, timestamp: Timestamp = .zero,
                duration: TimeDelta = .zero, width: Int = 0, height: Int = 0,
                vp8: VP8FrameInfo? = nil, vp9: VP9FrameInfo? = nil, nalUnits: [Range<Int>] = []) {
        self.codec = codec
        self.data = data
        self.isKeyframe = isKeyframe
        self.timestamp = timestamp
        self.duration = duration
        self.width = width
        self.height = height
        self.vp8 = vp8
        self.vp9 = vp9
        self.nalUnits = nalUnits
    }
}
