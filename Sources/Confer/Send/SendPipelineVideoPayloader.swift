import ConferMedia
import ConferRTP

/// The three video payloaders behind one concrete type, so the per-frame call is direct
/// rather than through an existential (pion/rtp's payloader per codec, chosen at run time).
enum SendPipelineVideoPayloader {
    case vp8(VP8Payloader)
    case vp9(VP9Payloader)
    case h264(H264Payloader)

    init(codec: Codec) throws(SendPipelineError) {
        switch codec {
        case .vp8: self = .vp8(VP8Payloader())
        case .vp9: self = .vp9(VP9Payloader())
        case .h264: self = .h264(H264Payloader())
        case .opus: throw SendPipelineError("opus is an audio codec; the video stream needs vp8, vp9 or h264")
        }
    }

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes, handing each to `emit`.
    mutating func payload(_ frame: EncodedFrame, maxPayloadSize: Int,
                          _ emit: (UnsafeRawBufferPointer, Bool) -> Void) throws(PayloadError) {
        do {
            switch self {
            case .vp8(var payloader):
                self = .h264(H264Payloader())   // release the payload so the scratch buffer is not copied
                defer { self = .vp8(payloader) }
                try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
            case .vp9(var payloader):
                self = .h264(H264Payloader())
                defer { self = .vp9(payloader) }
                try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
            case .h264(var payloader):
                defer { self = .h264(payloader) }
                try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
            }
        } catch {
            throw error.payloadError
        }
    }
}
