public import ConferMedia

/// The four payloaders behind one concrete type, chosen by codec at run time: the one codec
/// dispatch on the send side (pion/rtp picks a payloader per codec the same way).
///
/// An enum rather than `any Payloader`, so the per-frame call is direct and specialized.
public enum RTPPayloader {
    /// RFC 7741.
    case vp8(VP8Payloader)
    /// RFC 9628.
    case vp9(VP9Payloader)
    /// RFC 6184.
    case h264(H264Payloader)
    /// RFC 7587.
    case opus(OpusPayloader)
    /// Held only while a payloader is out being used, so its scratch buffer stays uniquely
    /// referenced (a copy left in the enum would make every frame copy it).
    case taken

    /// The payloader for `codec`; Opus marks the first packet of a talkspurt when
    /// `marksTalkspurts` (RFC 3551 §4.1); VP8 writes TL0PICIDX, TID and Y when
    /// `writesTemporalLayers` (a stream with temporal layers, RFC 7741 §4.2), and VP9 then
    /// describes its layers as `vp9Layers` says (by default flexible mode with layer indices
    /// and P_DIFFs, RFC 9628 §4.2).
    public init(codec: Codec, marksTalkspurts: Bool = false, writesTemporalLayers: Bool = false,
                vp9Layers: VP9LayerSignalling = .flexibleMode) {
        switch codec {
        case .vp8: self = .vp8(VP8Payloader(includesTemporalLayerInfo: writesTemporalLayers))
        // Confer sends one spatial and one temporal layer, for which RFC 9628 leaves the layer
        // indices out (L = 0). FFmpeg's RTP demuxer (libavformat 5.x, rtpdec_vp9.c) reads the
        // layer byte of an older draft with no TL0PICIDX after it, so with L = 1 it takes
        // TL0PICIDX for the scalability structure and the payload is off by one byte; without
        // it, FFmpeg and GStreamer both read the stream.
        // With temporal layers, flexible mode (as libwebrtc sends VP9 SVC): its P_DIFFs let a
        // receiver forwarded only some layers decide each frame decodable across the gaps in
        // picture ids. GStreamer reads it; FFmpeg 5.1 does not (it reads the P_DIFF byte as
        // picture data), as it misreads every RFC 9628 layout that carries layer indices:
        // for it, layers go out described as one (``VP9LayerSignalling/pictureIDsOnly``).
        case .vp9: self = .vp9(writesTemporalLayers && vp9Layers == .flexibleMode
                               ? VP9Payloader(includesLayerIndices: true, isFlexibleMode: true)
                               : VP9Payloader(includesLayerIndices: false))
        case .h264: self = .h264(H264Payloader())
        case .opus: self = .opus(OpusPayloader(marksTalkspurts: marksTalkspurts))
        }
    }

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes and hands each to
    /// `emit` with its marker flag, as ``Payloader/payload(_:maxPayloadSize:_:)`` does.
    public mutating func payload<E: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int, _ emit: (UnsafeRawBufferPointer, Bool) throws(E) -> Void
    ) throws(PayloaderFailure<E>) {
        switch self {
        case .vp8(var payloader):
            self = .taken
            defer { self = .vp8(payloader) }
            try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .vp9(var payloader):
            self = .taken
            defer { self = .vp9(payloader) }
            try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .h264(var payloader):
            self = .taken
            defer { self = .h264(payloader) }
            try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .opus(var payloader):
            self = .taken
            defer { self = .opus(payloader) }
            try payloader.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .taken:
            return
        }
    }
}
