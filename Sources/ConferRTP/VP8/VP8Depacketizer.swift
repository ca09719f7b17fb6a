public import ConferMedia

/// Reads VP8 RTP payloads (RFC 7741 §4) back into VP8 frames.
///
/// A frame starts at the payload with S set and PID 0 and ends at the marker bit. On the
/// first payload it fills ``EncodedFrame/vp8`` from the descriptor, the keyframe flag from
/// the VP8 payload header, and on keyframes the picture size from the keyframe header.
public struct VP8Depacketizer: Depacketizer, Sendable {
    /// What ``parse(_:)`` returns: a ``VP8PayloadDescriptor``.
    public typealias Descriptor = VP8PayloadDescriptor
    /// The codec this handles.
    public static var codec: Codec { .vp8 }

    /// A depacketizer; it keeps no state between frames.
    public init() {}

    /// Validates `payload` and says where it sits in its frame, without allocating.
    public func boundaries(of payload: UnsafeRawBufferPointer, marker: Bool) throws(PayloadError) -> PayloadBoundaries {
        let head = try parse(payload).startsFrame
        return PayloadBoundaries(isPartitionHead: head, isFrameHead: head, isPartitionTail: marker)
    }

    /// Resets the codec fields this depacketizer fills, keeping their storage.
    public func beginFrame(_ frame: inout EncodedFrame) {
        frame.isKeyframe = false
        frame.vp9 = nil
        frame.nalUnits.removeAll(keepingCapacity: true)
        // Reuse the last frame's partition offsets array rather than allocating a new one.
        if frame.vp8 == nil { frame.vp8 = VP8FrameInfo(pictureID: 0) }
        frame.vp8!.partitionOffsets.removeAll(keepingCapacity: true)
    }

    /// Appends the payload's bitstream to `frame.data` and fills the codec fields it tells about.
    public func append(_ payload: UnsafeRawBufferPointer, to frame: inout EncodedFrame) throws(PayloadError) {
        let d = try parse(payload)
        let first = frame.data.isEmpty
        if first {
            guard d.startsFrame else {
                throw PayloadError(.invalid, codec: .vp8, field: "S|PID (frame does not start partition 0)", offset: 0)
            }
            frame.isKeyframe = d.isKeyframe
            frame.vp8!.pictureID = d.pictureID ?? 0
            frame.vp8!.temporalLayer = d.temporalLayer ?? 0
            frame.vp8!.layerSync = d.layerSync
            frame.vp8!.tl0PictureIndex = d.tl0PictureIndex ?? 0
            frame.vp8!.partitionOffsets.append(0)
            if d.isKeyframe { readPictureSize(UnsafeRawBufferPointer(rebasing: payload[d.bitstream]), into: &frame) }
        } else if d.startsFrame {
            throw PayloadError(.invalid, codec: .vp8, field: "S|PID (a second frame start)", offset: 0)
        } else if d.startsPartition {
            frame.vp8!.partitionOffsets.append(frame.data.count)
        }
        frame.data.appendBytes(UnsafeRawBufferPointer(rebasing: payload[d.bitstream]))
    }

    /// Checks the frame was not left half done.
    public func endFrame(_ frame: inout EncodedFrame) throws(PayloadError) {
        if frame.data.isEmpty {
            throw PayloadError(.truncated, codec: .vp8, field: "frame (no payloads)", offset: 0)
        }
    }

    /// Reads width and height from a keyframe header (RFC 6386 §9.1): a 3-byte frame tag,
    /// the start code 9d 01 2a, then 14-bit width and height, little-endian, each with 2 scaling bits.
    private func readPictureSize(_ bitstream: UnsafeRawBufferPointer, into frame: inout EncodedFrame) {
        guard bitstream.count >= 10, bitstream[3] == 0x9D, bitstream[4] == 0x01, bitstream[5] == 0x2A else { return }
        frame.width = Int(UInt16(bitstream[6]) | UInt16(bitstream[7]) << 8) & 0x3FFF
        frame.height = Int(UInt16(bitstream[8]) | UInt16(bitstream[9]) << 8) & 0x3FFF
    }
}
