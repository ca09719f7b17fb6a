public import ConferMedia
internal import CVPX

/// A VP8 or VP9 decoder over libvpx that survives corrupt input.
///
/// Decoded pictures are copied out of libvpx's buffers into frames from a ``FramePool``
/// (re-created when the stream changes size), so they stay valid after the next decode and
/// steady-state decoding allocates nothing.
///
/// After any error — libvpx rejecting a frame, or decoding it but flagging it corrupted —
/// the decoder's references are suspect, so it waits for a keyframe: ``decode(_:)`` returns
/// nil for every non-key frame until a keyframe decodes cleanly (``needsKeyframe`` says so;
/// a receiver should ask the sender for one). A new decoder also starts in that state.
public final class VPXDecoder: VideoDecoder {
    /// ``Codec/vp8`` or ``Codec/vp9``.
    public let codec: Codec
    /// Decoder threads (1: decode on the caller's thread only).
    public let threads: Int
    /// Whether the decoder is discarding frames until a keyframe (at the start and after an error).
    public private(set) var needsKeyframe = true

    private let iface: OpaquePointer
    private let context: VPXContext
    private let poolCapacity: Int
    private var pool: FramePool?

    /// Opens a `codec` decoder (``Codec/vp8`` or ``Codec/vp9``).
    ///
    /// - Parameters:
    ///   - threads: threads libvpx may use (VP8 rows, VP9 tiles and rows).
    ///   - poolCapacity: how many decoded frames may be alive at once before the pool
    ///     allocates beyond its recycled buffers.
    public init(codec: Codec, threads: Int = 1, poolCapacity: Int = 8) throws(VPXError) {
        let iface = try VPXContext.interface(for: codec, encoder: false)
        guard (1...64).contains(threads) else {
            throw VPXError(code: .invalidParameter, operation: .decoderInit, detail: "threads \(threads) is outside 1…64")
        }
        self.codec = codec
        self.iface = iface
        self.threads = threads
        self.poolCapacity = max(1, poolCapacity)
        var config = vpx_codec_dec_cfg_t(threads: UInt32(threads), w: 0, h: 0)
        context = try withUnsafePointer(to: &config) { (pointer) throws(VPXError) -> VPXContext in
            try VPXContext(decoder: iface, config: pointer)
        }
        if codec == .vp9 && threads > 1 {
            // Row multithreading helps streams without tile columns (most real-time ones).
            try context.control(VP9D_SET_ROW_MT, 1)
        }
    }

    /// Decodes one frame. Nil when it produced no picture: a non-key frame while waiting for a
    /// keyframe, or a frame libvpx decodes without showing.
    ///
    /// Throws ``VPXError`` for a frame libvpx rejects (with its code and detail) or decodes
    /// but marks corrupted (``VPXError/Code/corruptFrame``); either way the decoder then waits
    /// for a keyframe.
    public func decode(_ frame: EncodedFrame) throws(VPXError) -> VideoFrame? {
        guard !frame.data.isEmpty else {
            // libvpx reads an empty buffer as "flush", not as a frame.
            throw VPXError(code: .invalidParameter, operation: .decode, detail: "empty frame")
        }
        guard frame.data.count <= Int(UInt32.max) else {
            throw VPXError(code: .invalidParameter, operation: .decode, detail: "frame of \(frame.data.count) bytes is too large")
        }
        let status = frame.data.withUnsafeBufferPointer { bytes -> vpx_codec_err_t? in
            let base = bytes.baseAddress!
            let count = UInt32(bytes.count)
            if needsKeyframe && !isKeyframe(base, count) { return nil }
            return vpx_codec_decode(context.pointer, base, count, nil, 0)
        }
        guard let status else { return nil }
        guard status == VPX_CODEC_OK else {
            needsKeyframe = true
            throw VPXError(status, operation: .decode, context: context.pointer)
        }
        if let corrupted = context.query(VP8D_GET_FRAME_CORRUPTED), corrupted != 0 {
            needsKeyframe = true
            drainPictures()
            throw VPXError(code: .corruptFrame, operation: .decode,
                           detail: "libvpx decoded the frame but marked it corrupted (a reference is damaged)")
        }
        needsKeyframe = false
        var iterator: vpx_codec_iter_t?
        guard let image = vpx_codec_get_frame(context.pointer, &iterator) else { return nil }
        defer { drainPictures(from: &iterator) }
        return try copy(image.pointee, timestamp: frame.timestamp)
    }

    /// Whether the bitstream starts a keyframe, from its header alone.
    private func isKeyframe(_ data: UnsafePointer<UInt8>, _ count: UInt32) -> Bool {
        var info = vpx_codec_stream_info_t()
        info.sz = UInt32(MemoryLayout<vpx_codec_stream_info_t>.size)
        return vpx_codec_peek_stream_info(iface, data, count, &info) == VPX_CODEC_OK && info.is_kf != 0
    }

    /// Discards any pictures the last decode produced, so none is returned for a later frame.
    private func drainPictures(from iterator: inout vpx_codec_iter_t?) {
        while vpx_codec_get_frame(context.pointer, &iterator) != nil {}
    }

    private func drainPictures() {
        var iterator: vpx_codec_iter_t?
        drainPictures(from: &iterator)
    }

    /// Copies a decoded 8-bit 4:2:0 picture into a pooled frame.
    private func copy(_ image: vpx_image_t, timestamp: Timestamp) throws(VPXError) -> VideoFrame {
        guard image.fmt == VPX_IMG_FMT_I420 || image.fmt == VPX_IMG_FMT_YV12,
              let y = image.planes.0, let u = image.planes.1, let v = image.planes.2,
              image.d_w > 0, image.d_h > 0 else {
            throw VPXError(code: .unsupportedFeature, operation: .decode,
                           detail: "decoded picture format \(image.fmt.rawValue) is not 8-bit 4:2:0")
        }
        let width = Int(image.d_w), height = Int(image.d_h)
        let pool: FramePool
        if let current = self.pool, current.layout.width == width, current.layout.height == height {
            pool = current
        } else {
            pool = FramePool(width: width, height: height, capacity: poolCapacity)
            self.pool = pool
        }
        // YV12 stores V before U; libvpx's plane indices already name them, so index by name.
        let output = pool.makeFrame(timestamp: timestamp)
        output.y.copy(from: y, sourceStride: Int(image.stride.0))
        output.u.copy(from: u, sourceStride: Int(image.stride.1))
        output.v.copy(from: v, sourceStride: Int(image.stride.2))
        return output.finish()
    }
}
