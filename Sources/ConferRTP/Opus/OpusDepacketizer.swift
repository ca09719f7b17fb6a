public import ConferMedia

/// What the TOC byte of an Opus packet says (RFC 6716 §3.1); Opus has no payload descriptor.
public struct OpusPayloadDescriptor: PayloadDescriptor, Hashable, Sendable {
    /// The configuration number (0…31): mode, bandwidth and frame size.
    public var configuration: UInt8
    /// The s bit: the packet is coded in stereo.
    public var isStereo: Bool
    /// How many Opus frames the packet holds (1…48).
    public var frameCount: Int
    /// The audio the packet covers.
    public var duration: TimeDelta
    /// The whole payload is the Opus packet.
    public var bitstream: Range<Int>

    /// Length of one frame of `configuration`, in tenths of a millisecond (RFC 6716 Table 2).
    static func frameTenthsOfMillisecond(_ configuration: UInt8) -> Int {
        let index = Int(configuration & 3)
        switch configuration {
        case 0...11: return index == 3 ? 600 : 100 << index   // SILK: 10, 20, 40, 60 ms
        case 12...15: return 100 << (index & 1)               // hybrid: 10, 20 ms
        default: return 25 << index                           // CELT: 2.5, 5, 10, 20 ms
        }
    }

    /// Reads the TOC byte and the frame count code, checking the packet's framing as far as
    /// the RFC 6716 §3.4 rules need the count: a code 1 packet splits evenly, a code 2
    /// packet's first frame length fits, a code 3 packet has its count byte, at least one
    /// frame and at most 120 ms of audio.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> OpusPayloadDescriptor {
        guard payload.count >= 1 else { throw PayloadError(.truncated, codec: .opus, field: "TOC", offset: 0) }
        let toc = payload[0]
        let configuration = toc >> 3
        let frames: Int
        switch toc & 0x03 {
        case 0:
            frames = 1
        case 1:
            guard (payload.count - 1) % 2 == 0 else {
                throw PayloadError(.invalid, codec: .opus, field: "code 1 frames of unequal length", offset: 1)
            }
            frames = 2
        case 2:
            guard payload.count >= 2 else { throw PayloadError(.truncated, codec: .opus, field: "code 2 frame length", offset: 1) }
            var length = Int(payload[1]), header = 2
            if length >= 252 {
                guard payload.count >= 3 else {
                    throw PayloadError(.truncated, codec: .opus, field: "code 2 frame length (second byte)", offset: 2)
                }
                length += 4 * Int(payload[2]); header = 3
            }
            guard header + length <= payload.count else {
                throw PayloadError(.truncated, codec: .opus, field: "code 2 first frame", offset: header)
            }
            frames = 2
        default:
            guard payload.count >= 2 else { throw PayloadError(.truncated, codec: .opus, field: "code 3 frame count", offset: 1) }
            frames = Int(payload[1] & 0x3F)
            guard frames >= 1 else { throw PayloadError(.invalid, codec: .opus, field: "code 3 frame count (zero)", offset: 1) }
        }
        let tenths = frames * frameTenthsOfMillisecond(configuration)
        guard tenths <= 1200 else {
            throw PayloadError(.invalid, codec: .opus, field: "frame count (over 120 ms)", offset: 1)
        }
        return OpusPayloadDescriptor(configuration: configuration, isStereo: toc & 0x04 != 0, frameCount: frames,
                                     duration: TimeDelta(microseconds: Int64(tenths) * 100), bitstream: 0..<payload.count)
    }
}

/// Reads Opus RTP payloads (RFC 7587): each payload is one Opus packet and one frame.
public struct OpusDepacketizer: Depacketizer, Sendable {
    /// What ``parse(_:)`` returns: a ``OpusPayloadDescriptor``.
    public typealias Descriptor = OpusPayloadDescriptor
    /// The codec this handles.
    public static var codec: Codec { .opus }

    /// A depacketizer; it keeps no state.
    public init() {}

    /// Validates `payload` and says where it sits in its frame, without allocating.
    public func boundaries(of payload: UnsafeRawBufferPointer, marker: Bool) throws(PayloadError) -> PayloadBoundaries {
        _ = try parse(payload)
        return PayloadBoundaries(isPartitionHead: true, isFrameHead: true, isPartitionTail: true)
    }

    /// Resets the codec fields this depacketizer fills, keeping their storage.
    public func beginFrame(_ frame: inout EncodedFrame) {
        frame.isKeyframe = true
        frame.vp8 = nil
        frame.vp9 = nil
        frame.nalUnits.removeAll(keepingCapacity: true)
    }

    /// Appends the payload's bitstream to `frame.data` and fills the codec fields it tells about.
    public func append(_ payload: UnsafeRawBufferPointer, to frame: inout EncodedFrame) throws(PayloadError) {
        guard frame.data.isEmpty else {
            throw PayloadError(.invalid, codec: .opus, field: "second payload in one frame", offset: 0)
        }
        frame.duration = try parse(payload).duration
        frame.data.appendBytes(payload)
    }

    /// Checks the frame was not left half done.
    public func endFrame(_ frame: inout EncodedFrame) throws(PayloadError) {
        if frame.data.isEmpty { throw PayloadError(.truncated, codec: .opus, field: "frame (no payload)", offset: 0) }
    }
}
