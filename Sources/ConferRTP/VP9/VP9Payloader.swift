public import ConferMedia

/// Splits VP9 frames into RTP payloads in non-flexible or flexible mode (RFC 9628 §4.2).
///
/// Every payload carries the picture id and, unless turned off, the layer indices and
/// TL0PICIDX from ``VP9FrameInfo``. In flexible mode (``isFlexibleMode``, for temporal
/// layers) the layer indices come without TL0PICIDX and every inter frame names the picture
/// it predicts from as a P_DIFF (``VP9FrameInfo/referenceDistance``), as libwebrtc sends VP9
/// SVC: a receiver forwarded only some layers then sees gaps in the picture ids that are not
/// loss. (GStreamer reads it; FFmpeg 5.1's demuxer, which follows an older draft, takes the
/// P_DIFF byte for picture data: see `LayeredStreamInteropTests`.) B is set on the first
/// payload, E and the marker on the last. The first payload of a keyframe also carries the
/// scalability structure with the frame's width and height and the configured picture group
/// (none in flexible mode). Payload sizes are
/// balanced as libwebrtc balances them: whole payloads (descriptor included) differ by at
/// most one byte, the first giving up room for its larger descriptor.
public struct VP9Payloader: Payloader, Sendable {
    /// The codec this handles.
    public static var codec: Codec { .vp9 }

    /// How the picture id is written (frames without ``VP9FrameInfo`` carry none).
    public var pictureIDLength: PictureIDLength
    /// Whether to write the layer indices and TL0PICIDX (L bit).
    public var includesLayerIndices: Bool
    /// Whether to write flexible mode (F bit): references as P_DIFFs, no TL0PICIDX, and no
    /// picture group in the scalability structure (the references say it frame by frame).
    public var isFlexibleMode: Bool {
        didSet { structure = nil }
    }
    /// The picture group written in the scalability structure on keyframes (nil: G bit clear).
    /// The default is libwebrtc's for a single temporal layer: one picture referencing the one before it.
    public var pictureGroup: [VP9ScalabilityStructure.PictureGroupEntry]? {
        didSet { structure = nil }
    }
    /// Reused for every payload; grows to the largest payload size asked for.
    private var scratch: [UInt8] = []
    /// The last scalability structure written, kept so an unchanged picture size costs no allocation.
    private var structure: VP9ScalabilityStructure?

    /// A payloader writing the given optional descriptor fields.
    public init(pictureIDLength: PictureIDLength = .fifteenBits, includesLayerIndices: Bool = true,
                isFlexibleMode: Bool = false,
                pictureGroup: [VP9ScalabilityStructure.PictureGroupEntry]? = [
                    .init(temporalLayer: 0, switchingUpPoint: false, referenceDiffs: [1]),
                ]) {
        self.pictureIDLength = pictureIDLength
        self.includesLayerIndices = includesLayerIndices
        self.isFlexibleMode = isFlexibleMode
        self.pictureGroup = pictureGroup
    }

    /// The scalability structure for a keyframe of `frame`'s size.
    private mutating func scalabilityStructure(for frame: EncodedFrame) -> VP9ScalabilityStructure {
        let resolution = VP9ScalabilityStructure.Resolution(width: UInt16(clamping: frame.width),
                                                            height: UInt16(clamping: frame.height))
        if let structure, structure.resolutions?.first == resolution { return structure }
        let made = VP9ScalabilityStructure(spatialLayerCount: 1, resolutions: [resolution],
                                           pictureGroup: isFlexibleMode ? nil : pictureGroup)
        structure = made
        return made
    }

    /// The descriptor of the frame's first payload.
    private mutating func descriptor(for frame: EncodedFrame) -> VP9PayloadDescriptor {
        let info = frame.vp9
        let predicted = info?.interPicturePredicted ?? !frame.isKeyframe
        let keyframe = frame.isKeyframe && (info?.spatialLayer ?? 0) == 0
        let idMask: UInt16 = pictureIDLength == .sevenBits ? 0x7F : 0x7FFF
        var references = VP9ReferenceDiffs()
        // Flexible mode with P set needs at least one P_DIFF; unknown, it is the picture before.
        if isFlexibleMode && predicted { references.append(info?.referenceDistance ?? 1) }
        return VP9PayloadDescriptor(
            pictureID: pictureIDLength == .none ? nil : info.map { $0.pictureID & idMask },
            pictureIDLength: pictureIDLength,
            isInterPicturePredicted: predicted,
            isFlexibleMode: isFlexibleMode,
            startsFrame: true, endsFrame: false,
            layer: includesLayerIndices ? VP9LayerIndices(
                temporalLayer: info?.temporalLayer ?? 0, switchingUpPoint: info?.switchingUpPoint ?? false,
                spatialLayer: info?.spatialLayer ?? 0) : nil,
            tl0PictureIndex: includesLayerIndices && !isFlexibleMode ? info?.tl0PictureIndex ?? 0 : nil,
            referenceDiffs: references,
            scalabilityStructure: keyframe ? scalabilityStructure(for: frame) : nil)
    }

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes; see ``Payloader/payload(_:maxPayloadSize:_:)``.
    public mutating func payload<EmitFailure: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int,
        _ emit: (_ payload: UnsafeRawBufferPointer, _ marker: Bool) throws(EmitFailure) -> Void
    ) throws(PayloaderFailure<EmitFailure>) {
        try PayloaderFailure<EmitFailure>.requireData(of: frame, codec: .vp9)
        var descriptor = descriptor(for: frame)
        let firstHeader = descriptor.encodedSize
        let structure = descriptor.scalabilityStructure
        descriptor.scalabilityStructure = nil
        let restHeader = descriptor.encodedSize
        guard let split = PayloadSplit(total: frame.data.count, firstCapacity: maxPayloadSize - firstHeader,
                                       restCapacity: maxPayloadSize - restHeader) else {
            throw .payload(PayloadError(.doesNotFit, codec: .vp9, field: "maxPayloadSize below descriptor + 1", offset: 0))
        }
        if scratch.count < maxPayloadSize { scratch = [UInt8](repeating: 0, count: maxPayloadSize) }
        // See VP8Payloader: only `emit` throws inside, so the cast back is exact, and no
        // `EmitFailure?` needs generic metadata per frame.
        do {
            try scratch.withUnsafeMutableBytes { out in
                try frame.data.withUnsafeBytes { source in
                    var offset = 0
                    for index in 0..<split.count {
                        let size = split.size(ofPacket: index)
                        let last = index == split.count - 1
                        descriptor.startsFrame = index == 0
                        descriptor.endsFrame = last
                        descriptor.scalabilityStructure = index == 0 ? structure : nil
                        let written = descriptor.write(to: out)
                        out.copy(UnsafeRawBufferPointer(rebasing: source[offset..<offset + size]), to: written)
                        try emit(UnsafeRawBufferPointer(rebasing: out[0..<written + size]), last)
                        offset += size
                    }
                }
            }
        } catch {
            throw .emit(error as! EmitFailure)
        }
    }
}
