public import ConferMedia

/// Splits H.264 access units into RTP payloads in packetization mode 1 (RFC 6184 §5.6–5.8).
///
/// NAL units come from ``EncodedFrame/nalUnits`` or, when that is empty, from the
/// Annex-B start codes in the data. A NAL unit that fits goes alone in a single NAL unit
/// packet, except that consecutive NAL units that fit together (SPS, PPS and SEI ahead of
/// a slice, small slices) share one STAP-A. A NAL unit too large for one payload is split
/// into FU-A fragments whose sizes differ by at most one byte. The marker goes on the
/// access unit's last payload.
public struct H264Payloader: Payloader, Sendable {
    /// The codec this handles.
    public static var codec: Codec { .h264 }

    /// The smallest payload size that can carry any NAL unit (an FU-A with one byte).
    public static let minimumPayloadSize = 3

    /// Reused for STAP-A and FU-A payloads; single NAL units are emitted from the frame itself.
    private var scratch: [UInt8] = []

    /// A payloader.
    public init() {}

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes; see ``Payloader/payload(_:maxPayloadSize:_:)``.
    public mutating func payload<EmitFailure: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int,
        _ emit: (_ payload: UnsafeRawBufferPointer, _ marker: Bool) throws(EmitFailure) -> Void
    ) throws(PayloaderFailure<EmitFailure>) {
        guard maxPayloadSize >= Self.minimumPayloadSize else {
            throw .payload(PayloadError(.doesNotFit, codec: .h264, field: "maxPayloadSize below 3 (FU-A with one byte)", offset: 0))
        }
        var invalid: PayloadError?
        frame.data.withUnsafeBytes { data in
            do throws(PayloadError) {
                try H264NALUnits(data: data, ranges: frame.nalUnits).validate()
            } catch { invalid = error }
        }
        if let invalid { throw .payload(invalid) }
        if scratch.count < maxPayloadSize { scratch = [UInt8](repeating: 0, count: maxPayloadSize) }
        // See VP8Payloader: only `emit` throws inside, so the cast back is exact, and no
        // `EmitFailure?` needs generic metadata per frame.
        do {
            try scratch.withUnsafeMutableBytes { out in
                try frame.data.withUnsafeBytes { data in
                    try Self.packetize(data, ranges: frame.nalUnits, maxPayloadSize: maxPayloadSize, scratch: out, emit)
                }
            }
        } catch {
            throw .emit(error as! EmitFailure)
        }
    }

    private static func packetize<EmitFailure: Error>(
        _ data: UnsafeRawBufferPointer, ranges: [Range<Int>], maxPayloadSize: Int,
        scratch out: UnsafeMutableRawBufferPointer,
        _ emit: (UnsafeRawBufferPointer, Bool) throws(EmitFailure) -> Void
    ) throws(EmitFailure) {
        var units = H264NALUnits(data: data, ranges: ranges)
        var pending = units.next()
        while let nal = pending {
            pending = units.next()
            if nal.count > maxPayloadSize {
                try fragment(UnsafeRawBufferPointer(rebasing: data[nal]), maxPayloadSize: maxPayloadSize, scratch: out,
                             isLastInAccessUnit: pending == nil, emit)
                continue
            }
            // Gather the NAL units that follow while they fit one STAP-A with this one.
            var stapSize = 1 + 2 + nal.count
            var count = 1
            var header = data[nal.lowerBound] & 0x80 | data[nal.lowerBound] & 0x60
            var at = 1
            while let next = pending, stapSize + 2 + next.count <= maxPayloadSize {
                if count == 1 { at = appendAggregated(UnsafeRawBufferPointer(rebasing: data[nal]), to: out, at: at) }
                at = appendAggregated(UnsafeRawBufferPointer(rebasing: data[next]), to: out, at: at)
                let nalHeader = data[next.lowerBound]
                header = header & 0x80 | nalHeader & 0x80 | max(header & 0x60, nalHeader & 0x60)
                stapSize += 2 + next.count
                count += 1
                pending = units.next()
            }
            if count == 1 {
                try emit(UnsafeRawBufferPointer(rebasing: data[nal]), pending == nil)
            } else {
                // RFC 6184 §5.7.1: F is the OR of the aggregated F bits, NRI their maximum.
                out[0] = header | 24
                try emit(UnsafeRawBufferPointer(rebasing: out[0..<at]), pending == nil)
            }
        }
    }

    /// Writes a 16-bit NALU size and the NAL unit at `at`; returns the offset after it.
    private static func appendAggregated(_ nal: UnsafeRawBufferPointer, to out: UnsafeMutableRawBufferPointer, at: Int) -> Int {
        out[at] = UInt8(nal.count >> 8)
        out[at + 1] = UInt8(nal.count & 0xFF)
        out.copy(nal, to: at + 2)
        return at + 2 + nal.count
    }

    /// Emits `nal` (larger than `maxPayloadSize`) as FU-A fragments (RFC 6184 §5.8).
    private static func fragment<EmitFailure: Error>(
        _ nal: UnsafeRawBufferPointer, maxPayloadSize: Int, scratch out: UnsafeMutableRawBufferPointer,
        isLastInAccessUnit: Bool, _ emit: (UnsafeRawBufferPointer, Bool) throws(EmitFailure) -> Void
    ) throws(EmitFailure) {
        let nalHeader = nal[0]
        let capacity = maxPayloadSize - 2
        // A NAL unit longer than maxPayloadSize ≥ 3 leaves at least 3 bytes after its header.
        guard let split = PayloadSplit(total: nal.count - 1, firstCapacity: capacity, restCapacity: capacity) else { return }
        out[0] = nalHeader & 0xE0 | 28
        var offset = 1
        for index in 0..<split.count {
            let size = split.size(ofPacket: index)
            let last = index == split.count - 1
            out[1] = (index == 0 ? 0x80 : 0) | (last ? 0x40 : 0) | nalHeader & 0x1F
            out.copy(UnsafeRawBufferPointer(rebasing: nal[offset..<offset + size]), to: 2)
            try emit(UnsafeRawBufferPointer(rebasing: out[0..<2 + size]), last && isLastInAccessUnit)
            offset += size
        }
    }
}
