public import ConferMedia

/// Reads H.264 RTP payloads (RFC 6184, packetization modes 0 and 1) back into Annex-B
/// access units.
///
/// Each NAL unit is written after a 00 00 00 01 start code and its range recorded in
/// ``EncodedFrame/nalUnits``; FU-A fragments are joined under the NAL unit header rebuilt
/// from the FU indicator (F, NRI) and the FU header (type). A mode-0 stream, single NAL
/// unit packets only, needs nothing special. The frame is a keyframe when it holds an IDR
/// slice or an SPS. STAP-B, MTAP and FU-B (interleaved mode) are rejected as unsupported.
public struct H264Depacketizer: Depacketizer, Sendable {
    /// What ``parse(_:)`` returns: a ``H264PayloadDescriptor``.
    public typealias Descriptor = H264PayloadDescriptor
    /// The codec this handles.
    public static var codec: Codec { .h264 }

    /// The type of the NAL unit an FU-A has started and not yet ended, if any.
    private var openFragmentType: UInt8?

    /// A depacketizer.
    public init() {}

    /// Validates `payload` and says where it sits in its frame, without allocating.
    public func boundaries(of payload: UnsafeRawBufferPointer, marker: Bool) throws(PayloadError) -> PayloadBoundaries {
        let d = try parse(payload)
        return PayloadBoundaries(isPartitionHead: d.startsNALUnit, isFrameHead: d.startsAccessUnit, isPartitionTail: marker)
    }

    /// Resets the codec fields this depacketizer fills, keeping their storage.
    public mutating func beginFrame(_ frame: inout EncodedFrame) {
        openFragmentType = nil
        frame.isKeyframe = false
        frame.vp8 = nil
        frame.vp9 = nil
        frame.nalUnits.removeAll(keepingCapacity: true)
    }

    /// Appends the payload's bitstream to `frame.data` and fills the codec fields it tells about.
    public mutating func append(_ payload: UnsafeRawBufferPointer, to frame: inout EncodedFrame) throws(PayloadError) {
        let d = try parse(payload)
        frame.isKeyframe = frame.isKeyframe || d.containsKeyframeNALUnit
        switch d.packetType {
        case .singleNALUnit:
            try checkNoOpenFragment()
            appendNALUnit(payload, to: &frame)
        case .stapA:
            try checkNoOpenFragment()
            var at = 1
            while at < payload.count {   // sizes were checked by parse
                let size = Int(payload[at]) << 8 | Int(payload[at + 1])
                appendNALUnit(UnsafeRawBufferPointer(rebasing: payload[at + 2..<at + 2 + size]), to: &frame)
                at += 2 + size
            }
        case .fuA:
            let fragment = UnsafeRawBufferPointer(rebasing: payload[d.bitstream])
            if d.startsNALUnit {
                try checkNoOpenFragment()
                appendStartCode(to: &frame)
                let start = frame.data.count
                frame.data.append(payload[0] & 0xE0 | d.nalUnitType)
                frame.data.appendBytes(fragment)
                frame.nalUnits.append(start..<frame.data.count)
                openFragmentType = d.nalUnitType
            } else {
                guard let open = openFragmentType else {
                    throw PayloadError(.invalid, codec: .h264, field: "FU header (fragment without a start)", offset: 1)
                }
                guard open == d.nalUnitType else {
                    throw PayloadError(.invalid, codec: .h264, field: "FU header type (differs from the start fragment)", offset: 1)
                }
                frame.data.appendBytes(fragment)
                let last = frame.nalUnits.count - 1
                frame.nalUnits[last] = frame.nalUnits[last].lowerBound..<frame.data.count
            }
            if d.endsNALUnit { openFragmentType = nil }
        }
    }

    /// Checks the frame was not left half done.
    public mutating func endFrame(_ frame: inout EncodedFrame) throws(PayloadError) {
        defer { openFragmentType = nil }
        if openFragmentType != nil {
            throw PayloadError(.truncated, codec: .h264, field: "FU-A (no end fragment)", offset: 0)
        }
        if frame.data.isEmpty {
            throw PayloadError(.truncated, codec: .h264, field: "access unit (no payloads)", offset: 0)
        }
    }

    private func checkNoOpenFragment() throws(PayloadError) {
        if openFragmentType != nil {
            throw PayloadError(.invalid, codec: .h264, field: "FU header (fragment without an end)", offset: 0)
        }
    }

    private func appendStartCode(to frame: inout EncodedFrame) {
        frame.data.append(0); frame.data.append(0); frame.data.append(0); frame.data.append(1)
    }

    private func appendNALUnit(_ nal: UnsafeRawBufferPointer, to frame: inout EncodedFrame) {
        appendStartCode(to: &frame)
        let start = frame.data.count
        frame.data.appendBytes(nal)
        frame.nalUnits.append(start..<frame.data.count)
    }
}
