internal import CAVCodec
internal import ConferMedia

/// Where libavcodec decodes H.264 pictures: buffers of a Confer ``FramePool``, lent through
/// `get_buffer2`, so a decoded picture becomes a ``VideoFrame`` without a copy.
///
/// libavcodec keeps a picture as a reference while the application shows it; each side
/// holds the buffer on its own (the loan, the frame), and the pool takes it back when both
/// are done. One allocator serves one decoder (libavcodec calls it on the decoding thread:
/// slice threads do not allocate pictures).
final class H264FrameAllocator {
    /// Buffers kept per picture size beyond the decoder's own references: the frames the
    /// application may still hold.
    let spareFrames: Int
    private var pool: FramePool?

    init(spareFrames: Int) { self.spareFrames = spareFrames }

    /// How many buffers were made outside the pool because all were in use.
    var overflowCount: Int { pool?.overflowCount ?? 0 }

    /// Installs the allocator on `context`, which must not outlive it.
    func install(on context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.get_buffer2 = { context, frame, flags in
            guard let context, let frame, let opaque = context.pointee.opaque else { return confer_averror_invaliddata() }
            let allocator = Unmanaged<H264FrameAllocator>.fromOpaque(opaque).takeUnretainedValue()
            return allocator.allocate(context, frame, flags)
        }
    }

    private func allocate(_ context: UnsafeMutablePointer<AVCodecContext>, _ frame: UnsafeMutablePointer<AVFrame>,
                          _ flags: Int32) -> Int32 {
        // Formats Confer does not take keep libavcodec's own buffers; the decoder refuses
        // their pictures anyway, with a typed error.
        guard frame.pointee.format == AV_PIX_FMT_YUV420P.rawValue || frame.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue,
              frame.pointee.width > 0, frame.pointee.height > 0
        else { return avcodec_default_get_buffer2(context, frame, flags) }
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        var paddedWidth = frame.pointee.width, paddedHeight = frame.pointee.height
        let strideAlignment = Int(confer_avcodec_align_dimensions(context, &paddedWidth, &paddedHeight))
        let framePool: FramePool
        if let current = pool, current.layout.width == width, current.layout.height == height {
            framePool = current
        } else {
            // A new size (at an IDR): frames of the old size keep their storage until
            // libavcodec and the application let go; the old pool goes with them.
            // libavcodec pads each plane by 16 + STRIDE_ALIGN − 1 bytes for its SIMD reads.
            let layout = FrameLayout(width: width, height: height, allocatedWidth: Int(paddedWidth),
                                     allocatedHeight: Int(paddedHeight), strideAlignment: strideAlignment,
                                     planePadding: 16 + 2 * max(strideAlignment, 64))
            // H.264 keeps at most 16 reference pictures, plus the one being decoded.
            framePool = FramePool(layout: layout, capacity: 17 + spareFrames)
            pool = framePool
        }
        let loan = framePool.lend()
        let layout = loan.layout
        guard let buffer = av_buffer_create(loan.base.assumingMemoryBound(to: UInt8.self), layout.byteCount,
                                            { token, _ in if let token { FrameLoan.release(token) } },
                                            loan.token, 0)
        else {
            FrameLoan.release(loan.token)
            return -ENOMEM
        }
        let base = loan.base.assumingMemoryBound(to: UInt8.self)
        confer_avframe_set_plane(frame, 0, base, Int32(layout.strideY))
        confer_avframe_set_plane(frame, 1, base + layout.offsetU, Int32(layout.strideUV))
        confer_avframe_set_plane(frame, 2, base + layout.offsetV, Int32(layout.strideUV))
        confer_avframe_set_buffer(frame, buffer)
        return 0
    }

    /// The decoded picture in `frame` as a frame over its lent buffer, cropped to the
    /// picture's size; nil when the picture is not in one of this allocator's buffers at
    /// its usual place (libavcodec's own buffer, or cropped from the top or left).
    func adopt(_ frame: UnsafeMutablePointer<AVFrame>, timestamp: Timestamp) -> VideoFrame? {
        guard let pool, let buffer = confer_avframe_buffer(frame), let token = av_buffer_get_opaque(buffer),
              let plane = confer_avframe_plane(frame, 0),
              Int(confer_avframe_linesize(frame, 0)) == pool.layout.strideY
        else { return nil }
        // Every 4:2:0 picture is in a buffer this allocator made (it never hands those
        // formats to libavcodec's default), and only 4:2:0 pictures come here; the
        // address and size checks guard that before the opaque is read as a loan token.
        guard buffer.pointee.data == plane,
              Int(buffer.pointee.size) == pool.layout.byteCount,
              FrameLoan.storage(of: token, startsAt: plane),
              let layout = pool.layout.cropped(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        else { return nil }
        return FrameLoan.frame(lentAs: token, layout: layout, timestamp: timestamp)
    }
}
