import ConferMedia
import ConferRTP

/// What decodability needs to know about one frame, read from its first payload.
struct VideoFrameDescription: Sendable {
    /// How the frame's references are known.
    enum Dependency {
        /// Only by sequence continuity (H.264, or VP8/VP9 without picture ids): the previous frame.
        case sequence
        /// By picture id: the previous picture.
        case picture
        /// By temporal layer: TL0PICIDX and TID (VP8, VP9 non-flexible).
        case temporal
        /// By explicit picture id differences (VP9 flexible mode).
        case flexible
    }

    var dependency = Dependency.sequence
    var isKeyframe = false
    var pictureID: UInt16 = 0
    /// 128 or 32768: the picture id wraps at this; 0 without a picture id.
    var pictureIDModulus: Int64 = 0
    var tl0Index: UInt8 = 0
    var temporalLayer: UInt8 = 0
    var layerSync = false
    /// VP8 N bit: no other frame references this one.
    var isNonReference = false
    var spatialLayer: UInt8 = 0
    var referenceDiffs = VP9ReferenceDiffs()
}

/// The codec depacketizers behind one non-generic type, so the jitter buffer is compiled
/// once (a generic one would be specialized per codec in each client, or run unspecialized).
enum VideoPayloadReader: Sendable {
    case vp8(VP8Depacketizer)
    case vp9(VP9Depacketizer)
    case h264(H264Depacketizer)

    init(codec: Codec) throws(VideoJitterBufferError) {
        switch codec {
        case .vp8: self = .vp8(VP8Depacketizer())
        case .vp9: self = .vp9(VP9Depacketizer())
        case .h264: self = .h264(H264Depacketizer())
        case .opus: throw VideoJitterBufferError(.notAVideoCodec, "a video jitter buffer needs vp8, vp9 or h264, not opus")
        }
    }

    var codec: Codec {
        switch self {
        case .vp8: .vp8
        case .vp9: .vp9
        case .h264: .h264
        }
    }

    func boundaries(of payload: UnsafeRawBufferPointer, marker: Bool) throws(PayloadError) -> PayloadBoundaries {
        switch self {
        case .vp8(let reader): try reader.boundaries(of: payload, marker: marker)
        case .vp9(let reader): try reader.boundaries(of: payload, marker: marker)
        case .h264(let reader): try reader.boundaries(of: payload, marker: marker)
        }
    }

    mutating func beginFrame(_ frame: inout EncodedFrame) {
        switch self {
        case .vp8(let reader): reader.beginFrame(&frame)
        case .vp9(let reader): reader.beginFrame(&frame)
        case .h264(var reader):
            reader.beginFrame(&frame)
            self = .h264(reader)
        }
    }

    mutating func append(_ payload: UnsafeRawBufferPointer, to frame: inout EncodedFrame) throws(PayloadError) {
        switch self {
        case .vp8(let reader): try reader.append(payload, to: &frame)
        case .vp9(let reader): try reader.append(payload, to: &frame)
        case .h264(var reader):
            try reader.append(payload, to: &frame)
            self = .h264(reader)
        }
    }

    mutating func endFrame(_ frame: inout EncodedFrame) throws(PayloadError) {
        switch self {
        case .vp8(let reader): try reader.endFrame(&frame)
        case .vp9(let reader): try reader.endFrame(&frame)
        case .h264(var reader):
            defer { self = .h264(reader) }
            try reader.endFrame(&frame)
        }
    }

    /// Whether a frame head is certainly its frame's first packet, even if packets before it
    /// are missing and may still come. VP8 (S bit, partition 0) and VP9 (B bit) heads are. An
    /// H.264 access unit may hold several heads (SPS, PPS, SEI, the first slice); only an SPS
    /// or an access unit delimiter, which come first, is certain.
    func isCertainFrameHead(_ payload: UnsafeRawBufferPointer, boundaries: PayloadBoundaries) -> Bool {
        guard boundaries.isFrameHead else { return false }
        guard case .h264 = self else { return true }
        guard let d = try? H264PayloadDescriptor.parse(payload) else { return false }
        return d.nalUnitType == 7 || d.nalUnitType == 9
    }

    /// Whether a payload of a frame (not only its first) makes the frame a keyframe: H.264
    /// keyframes are told by an IDR slice or SPS anywhere in the access unit.
    func marksKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard case .h264 = self else { return false }
        return (try? H264PayloadDescriptor.parse(payload))?.containsKeyframeNALUnit ?? false
    }

    /// Reads the frame's dependency facts from its first payload (already validated by `boundaries`).
    func describe(firstPayload payload: UnsafeRawBufferPointer) -> VideoFrameDescription {
        var description = VideoFrameDescription()
        switch self {
        case .vp8:
            guard let d = try? VP8PayloadDescriptor.parse(payload) else { return description }
            description.isKeyframe = d.isKeyframe
            description.isNonReference = d.isNonReference
            if let pictureID = d.pictureID {
                description.pictureID = pictureID
                description.pictureIDModulus = d.pictureIDLength == .sevenBits ? 128 : 32_768
                description.dependency = .picture
                if let tl0 = d.tl0PictureIndex, let layer = d.temporalLayer {
                    description.dependency = .temporal
                    description.tl0Index = tl0
                    description.temporalLayer = layer
                    description.layerSync = d.layerSync
                }
            }
        case .vp9:
            guard let d = try? VP9PayloadDescriptor.parse(payload) else { return description }
            description.isKeyframe = d.startsKeyframe
            description.spatialLayer = d.layer?.spatialLayer ?? 0
            if let pictureID = d.pictureID {
                description.pictureID = pictureID
                description.pictureIDModulus = d.pictureIDLength == .sevenBits ? 128 : 32_768
                description.dependency = .picture
                if d.isFlexibleMode {
                    description.dependency = .flexible
                    description.referenceDiffs = d.referenceDiffs
                    description.temporalLayer = d.layer?.temporalLayer ?? 0
                    description.layerSync = d.layer?.switchingUpPoint ?? false
                } else if let tl0 = d.tl0PictureIndex, let layer = d.layer {
                    description.dependency = .temporal
                    description.tl0Index = tl0
                    description.temporalLayer = layer.temporalLayer
                    description.layerSync = layer.switchingUpPoint
                }
            }
        case .h264:
            description.isKeyframe = marksKeyframe(payload)
        }
        return description
    }
}
