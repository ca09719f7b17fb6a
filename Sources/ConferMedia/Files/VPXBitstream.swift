/// Reads the few bits of a VP8 or VP9 frame that containers and RTP need: whether it is
/// a keyframe. Bounds-checked; anything unreadable counts as "not a keyframe".
public enum VPXBitstream {
    /// Whether `frame` is a VP8 keyframe: bit 0 of the frame tag is 0 (RFC 6386 §9.1)
    /// and the keyframe start code 9d 01 2a follows the 3-byte tag.
    public static func isVP8Keyframe(_ frame: UnsafeRawBufferPointer) -> Bool {
        frame.count >= 10 && frame[0] & 1 == 0 && frame[3] == 0x9D && frame[4] == 0x01 && frame[5] == 0x2A
    }

    /// Whether `frame` is a VP9 keyframe, read from the uncompressed header (VP9 spec §6.2):
    /// frame_marker, profile, show_existing_frame, frame_type, then the sync code a
    /// keyframe must carry. For a superframe this reads its first frame.
    public static func isVP9Keyframe(_ frame: UnsafeRawBufferPointer) -> Bool {
        var bits = BitReader(frame, format: "VP9")
        do {
            guard try bits.readBits(2) == 2 else { return false }  // frame_marker
            let profileLow = try bits.readBit()
            let profile = profileLow | (try bits.readBit()) << 1
            if profile == 3, try bits.readBit() != 0 { return false }  // reserved_zero
            if try bits.readFlag() { return false }  // show_existing_frame: shows a decoded frame again
            guard try bits.readBit() == 0 else { return false }  // frame_type: 0 = KEY_FRAME
            _ = try bits.readBits(2)  // show_frame, error_resilient_mode
            return try bits.readBits(24) == 0x49_83_42  // frame_sync_code
        } catch {
            return false
        }
    }

    /// Whether `frame` of `codec` (VP8 or VP9) is a keyframe; false for other codecs.
    public static func isKeyframe(_ frame: UnsafeRawBufferPointer, codec: Codec) -> Bool {
        switch codec {
        case .vp8: isVP8Keyframe(frame)
        case .vp9: isVP9Keyframe(frame)
        default: false
        }
    }

    /// Whether `frame` of `codec` (VP8 or VP9) is a keyframe; false for other codecs.
    public static func isKeyframe(_ frame: [UInt8], codec: Codec) -> Bool {
        frame.withUnsafeBytes { isKeyframe($0, codec: codec) }
    }
}
