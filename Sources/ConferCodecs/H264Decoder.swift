internal import CAVCodec
public import ConferMedia

/// An H.264 decoder over libavcodec, set up for real-time streams.
///
/// Each call takes one Annex-B access unit and, in low-delay mode, returns its picture at
/// once. libavcodec decodes into buffers of a Confer ``FramePool`` (through `get_buffer2`),
/// so the returned ``VideoFrame`` is the decoder's own picture, not a copy. After any error
/// the decoder drops its state and skips access units (returning nil) until one with an IDR
/// slice decodes cleanly, so a corrupt or missing frame never turns into smeared video;
/// ``isAwaitingKeyframe`` tells the receiver when to ask the sender for one.
///
/// The decoder owns its `AVCodecContext`, `AVPacket`, `AVFrame` and input buffer, and frees
/// them when it goes away.
public struct H264Decoder: ~Copyable, VideoDecoder {
    /// Errors come from libavcodec or from access units Confer rejects.
    public typealias Failure = AVCodecError

    /// Always ``Codec/h264``.
    public var codec: Codec { .h264 }
    /// Whether the decoder is skipping access units until an IDR: true at the start and
    /// after any error. A receiver seeing this should request a keyframe.
    public private(set) var isAwaitingKeyframe = true
    /// The largest picture (in pixels) the decoder accepts from a stream's headers.
    public let maxPixelCount: Int
    /// The largest access unit (in bytes) the decoder accepts.
    public static let maxAccessUnitSize = 32 << 20

    private let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let decoded: UnsafeMutablePointer<AVFrame>
    // The access unit is copied here because libavcodec reads up to
    // AV_INPUT_BUFFER_PADDING_SIZE bytes past the end. Reference-counted, so libavcodec
    // takes a reference instead of another copy; reused while it is the only reference.
    private var input: UnsafeMutablePointer<AVBufferRef>?
    // Lends pool buffers to libavcodec; the context points at it, so it lives as long.
    private let allocator: H264FrameAllocator
    // Only for pictures the allocator cannot hand over as they are: cropped from the top or
    // left, or still in a buffer of the size before a resolution change.
    private var copyPool: FramePool?
    private let poolCapacity: Int
    // NAL units that came without a slice (parameter sets, SEI), kept for the next picture.
    private var pendingNALUnits: [UInt8] = []
    private static let maxPendingSize = 64 << 10
    // Pictures libavcodec returned beyond the one handed out by a call (a stream with
    // B-frames can release two at once); handed out by the following calls, in order.
    private var readyPictures: [VideoFrame] = []

    /// Opens a decoder.
    ///
    /// - Parameters:
    ///   - threads: decoding threads. Above 1, slices are decoded in parallel (frame
    ///     threading would delay every picture by `threads − 1` frames).
    ///   - fastDecoding: allows libavcodec's non-spec-compliant speedups (`AV_CODEC_FLAG2_FAST`).
    ///   - maxPixelCount: the largest picture a stream may declare; bigger ones are refused
    ///     before libavcodec allocates for them.
    ///   - poolCapacity: output frames kept for reuse beyond the pictures libavcodec holds
    ///     as references.
    public init(threads: Int = 1, fastDecoding: Bool = false, maxPixelCount: Int = 4096 * 2304,
                poolCapacity: Int = 8) throws(AVCodecError) {
        guard (1...64).contains(threads) else {
            throw AVCodecError(.invalidSettings, operation: "init", message: "thread count \(threads) is outside 1…64")
        }
        guard maxPixelCount > 0 else {
            throw AVCodecError(.invalidSettings, operation: "init", message: "maxPixelCount \(maxPixelCount) is not positive")
        }
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264) else {
            throw AVCodecError(.decoderUnavailable, operation: "avcodec_find_decoder",
                               message: "this libavcodec has no H.264 decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw AVCodecError(.decoderUnavailable, operation: "avcodec_alloc_context3", message: "out of memory")
        }
        context.pointee.thread_count = Int32(threads)
        context.pointee.thread_type = FF_THREAD_SLICE
        // Output each picture as soon as its access unit is in: meeting streams have no
        // B-frames, and waiting for reordering would add a frame of latency.
        context.pointee.flags |= AV_CODEC_FLAG_LOW_DELAY
        if fastDecoding { context.pointee.flags2 |= AV_CODEC_FLAG2_FAST }
        // Report damage instead of quietly concealing it, so the decoder can wait for an
        // IDR; concealment stays on for the pictures libavcodec still outputs.
        context.pointee.err_recognition = AV_EF_EXPLODE | AV_EF_BUFFER | AV_EF_BITSTREAM
        context.pointee.error_concealment = FF_EC_GUESS_MVS | FF_EC_DEBLOCK
        context.pointee.max_pixels = Int64(maxPixelCount)
        context.pointee.pkt_timebase = AVRational(num: 1, den: 1_000_000)
        let allocator = H264FrameAllocator(spareFrames: poolCapacity)
        allocator.install(on: context)
        var openContext: UnsafeMutablePointer<AVCodecContext>? = context
        let status = avcodec_open2(context, codec, nil)
        guard status >= 0 else {
            avcodec_free_context(&openContext)
            throw AVCodecError(.library, operation: "avcodec_open2", code: status)
        }
        guard let packet = av_packet_alloc() else {
            avcodec_free_context(&openContext)
            throw AVCodecError(.decoderUnavailable, operation: "av_packet_alloc", message: "out of memory")
        }
        guard let decoded = av_frame_alloc() else {
            var ownedPacket: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&ownedPacket)
            avcodec_free_context(&openContext)
            throw AVCodecError(.decoderUnavailable, operation: "av_frame_alloc", message: "out of memory")
        }
        self.context = context
        self.packet = packet
        self.decoded = decoded
        self.allocator = allocator
        self.maxPixelCount = maxPixelCount
        self.poolCapacity = poolCapacity
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var decoded: UnsafeMutablePointer<AVFrame>? = decoded
        av_frame_free(&decoded)
        var input = input
        av_buffer_unref(&input)
    }

    /// Decodes one Annex-B access unit.
    ///
    /// Returns nil when there is no picture to show: the access unit held only parameter
    /// sets or SEI (kept and decoded with the next picture), or the decoder is waiting for
    /// an IDR. Throws when the data is not decodable;
    /// the decoder then waits for the next IDR.
    public mutating func decode(_ frame: EncodedFrame) throws(AVCodecError) -> VideoFrame? {
        do {
            return try decodeAccessUnit(frame)
        } catch {
            discardState()
            throw error
        }
    }

    /// Drops decoding state and waits for the next IDR, as after an error (for example
    /// when the receiver knows frames were lost).
    public mutating func reset() { discardState() }

    private mutating func discardState() {
        avcodec_flush_buffers(context)
        av_frame_unref(decoded)
        readyPictures.removeAll(keepingCapacity: true)
        isAwaitingKeyframe = true
    }

    private mutating func decodeAccessUnit(_ frame: EncodedFrame) throws(AVCodecError) -> VideoFrame? {
        let count = frame.data.count
        guard count > 0, count <= Self.maxAccessUnitSize else {
            throw AVCodecError(.corruptData, operation: "decode", code: confer_averror_invaliddata(),
                               message: "access unit of \(count) bytes is outside 1…\(Self.maxAccessUnitSize)")
        }
        let scan = frame.data.withUnsafeBufferPointer { H264AccessUnitScan($0) }
        guard scan.nalUnitCount > 0 else {
            throw AVCodecError(.corruptData, operation: "decode", code: confer_averror_invaliddata(),
                               message: "no Annex-B start code in \(count) bytes")
        }
        if let offset = scan.forbiddenBitOffset {
            throw AVCodecError(.corruptData, operation: "decode", code: confer_averror_invaliddata(),
                               message: "NAL header at byte \(offset) has forbidden_zero_bit set")
        }
        if !scan.containsSlice {
            // Parameter sets or SEI sent on their own belong to the next picture's access
            // unit; libavcodec refuses them alone ("no frame"), so they wait for it.
            guard pendingNALUnits.count + count <= Self.maxPendingSize else {
                pendingNALUnits.removeAll(keepingCapacity: true)
                throw AVCodecError(.corruptData, operation: "decode", code: confer_averror_invaliddata(),
                                   message: "more than \(Self.maxPendingSize) bytes of NAL units without a slice")
            }
            pendingNALUnits.append(contentsOf: frame.data)
            return nil
        }
        // Slices that predict from pictures the decoder lacks are skipped.
        if isAwaitingKeyframe && !scan.containsIDR { return nil }

        try send(pendingNALUnits, frame.data, timestamp: frame.timestamp)
        pendingNALUnits.removeAll(keepingCapacity: true)
        // libavcodec took the IDR: from here on pictures are decodable, even when a stream
        // with B-frames holds this one back for reordering.
        if scan.containsIDR { isAwaitingKeyframe = false }
        try receivePictures(fallbackTimestamp: frame.timestamp)
        return isAwaitingKeyframe || readyPictures.isEmpty ? nil : readyPictures.removeFirst()
    }

    /// Ends the stream: returns the pictures libavcodec still holds for reordering (none
    /// for streams without B-frames), in display order. The decoder can be used again after.
    public mutating func flush() throws(AVCodecError) -> [VideoFrame] {
        let status = avcodec_send_packet(context, nil)
        if status >= 0 { try receivePictures(fallbackTimestamp: .zero) }
        let pictures = isAwaitingKeyframe ? [] : readyPictures
        readyPictures.removeAll()
        avcodec_flush_buffers(context)
        return pictures
    }

    private mutating func receivePictures(fallbackTimestamp: Timestamp) throws(AVCodecError) {
        while true {
            let status = avcodec_receive_frame(context, decoded)
            if status == confer_averror_eagain() || status == confer_averror_eof() { break }
            guard status >= 0 else { throw AVCodecError(libraryStatus: status, operation: "avcodec_receive_frame") }
            defer { av_frame_unref(decoded) }
            readyPictures.append(try takeDecodedPicture(fallbackTimestamp: fallbackTimestamp))
        }
    }

    /// Hands `prefix` and `bytes`, one access unit, to libavcodec through the reusable
    /// padded input buffer.
    private mutating func send(_ prefix: [UInt8], _ bytes: [UInt8], timestamp: Timestamp) throws(AVCodecError) {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        let count = prefix.count + bytes.count
        let needed = count + padding
        let buffer: UnsafeMutablePointer<AVBufferRef>
        if let current = input, av_buffer_is_writable(current) != 0, Int(current.pointee.size) >= needed {
            buffer = current
        } else {
            av_buffer_unref(&input)
            // Grow with headroom so a stream of slowly growing frames does not reallocate each time.
            guard let fresh = av_buffer_alloc(max(needed + needed / 2, 64 << 10)) else {
                throw AVCodecError(.library, operation: "av_buffer_alloc", code: -ENOMEM, message: "out of memory for \(needed) bytes")
            }
            input = fresh
            buffer = fresh
        }
        guard let base = buffer.pointee.data else {
            throw AVCodecError(.library, operation: "av_buffer_alloc", code: -ENOMEM, message: "buffer without data")
        }
        prefix.withUnsafeBufferPointer { source in
            guard let sourceBase = source.baseAddress else { return }
            base.update(from: sourceBase, count: source.count)
        }
        bytes.withUnsafeBufferPointer { source in
            guard let sourceBase = source.baseAddress else { return }
            (base + prefix.count).update(from: sourceBase, count: source.count)
        }
        (base + count).update(repeating: 0, count: padding)

        // The packet borrows our reference: avcodec_send_packet takes its own (it never
        // modifies the packet), and the borrowed one is cleared right after.
        packet.pointee.buf = buffer
        packet.pointee.data = base
        packet.pointee.size = Int32(count)
        packet.pointee.pts = timestamp.microseconds
        packet.pointee.dts = timestamp.microseconds
        let status = avcodec_send_packet(context, packet)
        packet.pointee.buf = nil
        packet.pointee.data = nil
        packet.pointee.size = 0
        guard status >= 0 else { throw AVCodecError(libraryStatus: status, operation: "avcodec_send_packet") }
    }

    /// How many pictures were decoded into buffers made outside the frame pool because
    /// every pooled one was in use (the application holding many frames).
    public var poolOverflowCount: Int { allocator.overflowCount }

    /// The picture libavcodec just returned, as a frame over its pooled buffer.
    private mutating func takeDecodedPicture(fallbackTimestamp: Timestamp) throws(AVCodecError) -> VideoFrame {
        let source = decoded.pointee
        if source.flags & AV_FRAME_FLAG_CORRUPT != 0 || source.decode_error_flags != 0 {
            throw AVCodecError(.corruptData, operation: "avcodec_receive_frame", code: confer_averror_invaliddata(),
                               message: "libavcodec concealed damage in the picture (error flags \(source.decode_error_flags))")
        }
        guard source.format == AV_PIX_FMT_YUV420P.rawValue || source.format == AV_PIX_FMT_YUVJ420P.rawValue else {
            throw AVCodecError(.unsupportedPixelFormat, operation: "avcodec_receive_frame",
                               message: "unsupported pixel format (AVPixelFormat \(source.format)); Confer takes 8-bit 4:2:0")
        }
        let width = Int(source.width), height = Int(source.height)
        guard width > 0, height > 0, width * height <= maxPixelCount else {
            throw AVCodecError(.corruptData, operation: "avcodec_receive_frame", code: confer_averror_invaliddata(),
                               message: "picture size \(width)×\(height) is outside 1…\(maxPixelCount) pixels")
        }
        // AV_NOPTS_VALUE (INT64_MIN) when libavcodec could not carry the packet's time over.
        let timestamp = source.pts == Int64.min ? fallbackTimestamp : Timestamp(microseconds: source.pts)
        if let picture = allocator.adopt(decoded, timestamp: timestamp) { return picture }
        let framePool: FramePool
        if let current = copyPool, current.layout.width == width, current.layout.height == height {
            framePool = current
        } else {
            framePool = FramePool(width: width, height: height, capacity: poolCapacity)
            copyPool = framePool
        }
        let output = framePool.makeFrame(timestamp: timestamp)
        try copyPlane(0, into: output.y)
        try copyPlane(1, into: output.u)
        try copyPlane(2, into: output.v)
        return output.finish()
    }

    private func copyPlane(_ index: Int32, into plane: MutableImagePlane) throws(AVCodecError) {
        let stride = Int(confer_avframe_linesize(decoded, index))
        guard let base = confer_avframe_plane(decoded, index), stride >= plane.width else {
            throw AVCodecError(.unsupportedPixelFormat, operation: "avcodec_receive_frame",
                               message: "plane \(index) has stride \(stride) for \(plane.width) pixels")
        }
        plane.copy(from: base, sourceStride: stride)
    }
}
