public import ConferMedia

/// Reads VP9 RTP payloads (RFC 9628) back into VP9 layer frames, in flexible or
/// non-flexible mode.
///
/// A frame runs from the payload with B set to the one with E set (or the marker): one
/// layer frame, which for a stream without spatial layers is the whole picture. On the
/// first payload it fills ``EncodedFrame/vp9``, the keyframe flag (P clear on spatial
/// layer 0) and, from a scalability structure, the picture size. Of a flexible-mode frame's
/// P_DIFFs, ``VP9FrameInfo/referenceDistance`` keeps the first.
public struct VP9Depacketizer: Depacketizer, Sendable {
    /// What ``parse(_:)`` returns: a ``VP9PayloadDescriptor``.
    public typealias Descriptor = VP9PayloadDescriptor
    /// The codec this handles.
    public static var codec: Codec { .vp9 }

    /// A depacketizer; it keeps no state between frames.
    public init() {}

    /// Validates `payload` and says where it sits in its frame, without allocating.
    public func boundaries(of payload: UnsafeRawBufferPointer, marker: Bool) throws(PayloadError) -> PayloadBoundaries {
        let d = try VP9PayloadDescriptor.parse(payload, buildingScalabilityStructure: false)
        return PayloadBoundaries(isPartitionHead: d.startsFrame, isFrameHead: d.startsFrame,
                                 isPartitionTail: d.endsFrame || marker)
    }

    /// Resets the codec fields this depacketizer fills, keeping their storage.
    public func beginFrame(_ frame: inout EncodedFrame) {
        frame.isKeyframe = false
        frame.vp8 = nil
        frame.nalUnits.removeAll(keepingCapacity: true)
    }

    /// Appends the payload's bitstream to `frame.data` and fills the codec fields it tells about.
    public func append(_ payload: UnsafeRawBufferPointer, to frame: inout EncodedFrame) throws(PayloadError) {
        let d = try VP9PayloadDescriptor.parse(payload, buildingScalabilityStructure: false)
        if frame.data.isEmpty {
            guard d.startsFrame else {
                throw PayloadError(.invalid, codec: .vp9, field: "B (frame does not start with B set)", offset: 0)
            }
            frame.isKeyframe = d.startsKeyframe
            frame.vp9 = VP9FrameInfo(
                pictureID: d.pictureID ?? 0, spatialLayer: d.layer?.spatialLayer ?? 0,
                temporalLayer: d.layer?.temporalLayer ?? 0, switchingUpPoint: d.layer?.switchingUpPoint ?? false,
                interPicturePredicted: d.isInterPicturePredicted, tl0PictureIndex: d.tl0PictureIndex ?? 0,
                referenceDistance: d.referenceDiffs.first)
            if let offset = d.scalabilityStructureOffset,
               let size = VP9ScalabilityStructure.resolution(in: payload, at: offset, layer: Int(d.layer?.spatialLayer ?? 0)) {
                frame.width = Int(size.width)
                frame.height = Int(size.height)
            }
        } else if d.startsFrame {
            throw PayloadError(.invalid, codec: .vp9, field: "B (a second frame start)", offset: 0)
        }
        frame.data.appendBytes(UnsafeRawBufferPointer(rebasing: payload[d.bitstream]))
    }

    /// Checks the frame was not left half done.
    public func endFrame(_ frame: inout EncodedFrame) throws(PayloadError) {
        if frame.data.isEmpty {
            throw PayloadError(.truncated, codec: .vp9, field: "frame (no payloads)", offset: 0)
        }
    }
}
