public import ConferMedia

/// Splits VP8 frames into RTP payloads (RFC 7741 §4).
///
/// Every payload carries the same descriptor (picture id from ``VP8FrameInfo``, and the
/// temporal-layer fields when asked for) except that S is set only on the first payload,
/// which starts partition 0; PID names the partition each payload starts in, from
/// ``VP8FrameInfo/partitionOffsets``. The frame is cut into the fewest payloads that fit,
/// whose sizes differ by at most one byte, as libwebrtc's `RtpPacketizerVp8` does.
public struct VP8Payloader: Payloader, Sendable {
    /// The codec this handles.
    public static var codec: Codec { .vp8 }

    /// How the picture id is written (frames without ``VP8FrameInfo`` carry none).
    public var pictureIDLength: PictureIDLength
    /// Whether to write TL0PICIDX (L) and TID/Y (T) from the frame's ``VP8FrameInfo``.
    public var includesTemporalLayerInfo: Bool
    /// KEYIDX to write (K), if any.
    public var keyIndex: UInt8?
    /// Reused for every payload; grows to the largest payload size asked for.
    private var scratch: [UInt8] = []

    /// A payloader writing the given optional descriptor fields.
    public init(pictureIDLength: PictureIDLength = .fifteenBits, includesTemporalLayerInfo: Bool = false,
                keyIndex: UInt8? = nil) {
        self.pictureIDLength = pictureIDLength
        self.includesTemporalLayerInfo = includesTemporalLayerInfo
        self.keyIndex = keyIndex
    }

    /// The descriptor of the frame's first payload.
    private func descriptor(for frame: EncodedFrame) -> VP8PayloadDescriptor {
        guard let info = frame.vp8 else { return VP8PayloadDescriptor(startsPartition: true, keyIndex: keyIndex) }
        return VP8PayloadDescriptor(
            startsPartition: true,
            pictureID: pictureIDLength == .none ? nil : info.pictureID & (pictureIDLength == .sevenBits ? 0x7F : 0x7FFF),
            pictureIDLength: pictureIDLength,
            tl0PictureIndex: includesTemporalLayerInfo ? info.tl0PictureIndex : nil,
            temporalLayer: includesTemporalLayerInfo ? info.temporalLayer & 0x03 : nil,
            layerSync: includesTemporalLayerInfo && info.layerSync,
            keyIndex: keyIndex)
    }

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes; see ``Payloader/payload(_:maxPayloadSize:_:)``.
    public mutating func payload<EmitFailure: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int,
        _ emit: (_ payload: UnsafeRawBufferPointer, _ marker: Bool) throws(EmitFailure) -> Void
    ) throws(PayloaderFailure<EmitFailure>) {
        var descriptor = descriptor(for: frame)
        let headerSize = descriptor.encodedSize
        try PayloaderFailure<EmitFailure>.requireData(of: frame, codec: .vp8)
        guard let split = PayloadSplit(total: frame.data.count, firstCapacity: maxPayloadSize - headerSize,
                                       restCapacity: maxPayloadSize - headerSize) else {
            throw .payload(PayloadError(.doesNotFit, codec: .vp8, field: "maxPayloadSize below descriptor + 1", offset: 0))
        }
        if scratch.count < maxPayloadSize { scratch = [UInt8](repeating: 0, count: maxPayloadSize) }
        let offsets = frame.vp8?.partitionOffsets ?? []
        // The closures of `withUnsafe…Bytes` rethrow untyped errors; only `emit` throws in
        // them, so the cast back is exact. A captured `EmitFailure?` would instead cost a
        // generic metadata lookup on every frame.
        do {
            try scratch.withUnsafeMutableBytes { out in
                try frame.data.withUnsafeBytes { source in
                    var offset = 0
                    var partition = 0
                    for index in 0..<split.count {
                        let size = split.size(ofPacket: index)
                        // Offsets out of order or out of range only stop PID from advancing.
                        while partition + 1 < offsets.count, offsets[partition + 1] <= offset { partition += 1 }
                        descriptor.startsPartition = index == 0
                        // The first payload starts the frame, so it is partition 0's even when the
                        // offsets claim empty partitions there (fuzzing found [0, 0, 1]).
                        descriptor.partitionIndex = index == 0 ? 0 : UInt8(truncatingIfNeeded: min(partition, 7))
                        let written = descriptor.write(to: out)
                        out.copy(UnsafeRawBufferPointer(rebasing: source[offset..<offset + size]), to: written)
                        try emit(UnsafeRawBufferPointer(rebasing: out[0..<written + size]), index == split.count - 1)
                        offset += size
                    }
                }
            }
        } catch {
            throw .emit(error as! EmitFailure)
        }
    }
}
