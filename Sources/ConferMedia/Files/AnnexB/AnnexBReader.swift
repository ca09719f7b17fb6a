/// Reads an H.264 Annex-B elementary stream as access units, one ``EncodedFrame`` each.
///
/// A new access unit begins at an access unit delimiter, or — once the current unit has a
/// slice — at an SPS, PPS, SEI (or other prefix NAL unit) or at a slice whose
/// first_mb_in_slice is 0 (H.264 §7.4.1.2.3). Each frame's `data` is the unit's Annex-B bytes
/// with their start codes, `nalUnits` the range of each NAL unit after its start code.
/// Annex B carries no timing, so timestamps follow the frame rate given.
public final class AnnexBReader {
    /// Frames per second numerator used for timestamps.
    public let frameRateNumerator: Int
    /// Frames per second denominator used for timestamps.
    public let frameRateDenominator: Int
    /// Access units read so far.
    public private(set) var framesRead = 0
    /// The most recent sequence parameter set seen.
    public private(set) var sps: H264SPS?
    private let scanner: AnnexBScanner
    private var pending: AnnexBScanner.NALUnit?

    /// Opens the Annex-B file at `path`, timing frames at `num/den` per second.
    public convenience init(path: String, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1) throws(MediaFileError) {
        try self.init(source: FileByteSource(path: path), frameRateNumerator: frameRateNumerator, frameRateDenominator: frameRateDenominator)
    }

    /// Reads Annex B from `bytes`.
    public convenience init(bytes: [UInt8], frameRateNumerator: Int = 30, frameRateDenominator: Int = 1) throws(MediaFileError) {
        try self.init(source: MemoryByteSource(bytes), frameRateNumerator: frameRateNumerator, frameRateDenominator: frameRateDenominator)
    }

    /// Reads Annex B from `source`; throws if it does not begin with a start code.
    public init(source: any ByteSource, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1) throws(MediaFileError) {
        guard frameRateNumerator > 0, frameRateDenominator > 0 else {
            throw MediaFileError(.malformed, format: AnnexBScanner.format, "frame rate \(frameRateNumerator)/\(frameRateDenominator) is not positive")
        }
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        let start = source.position
        scanner = AnnexBScanner(source: source)
        pending = try scanner.next()
        if pending == nil { throw MediaFileError(.truncated, format: AnnexBScanner.format, offset: start, "input is empty") }
    }

    /// The next access unit, or nil at the end of the stream.
    public func next() throws(MediaFileError) -> EncodedFrame? {
        var frame = EncodedFrame(codec: .h264)
        return try read(into: &frame) ? frame : nil
    }

    /// Replaces `frame` with the next access unit, reusing its buffers. Returns false at the end.
    public func read(into frame: inout EncodedFrame) throws(MediaFileError) -> Bool {
        frame.data.removeAll(keepingCapacity: true)
        frame.nalUnits.removeAll(keepingCapacity: true)
        var hasSlice = false
        var isKeyframe = false
        while true {
            if pending == nil { pending = try scanner.next() }
            guard let nal = pending else { break }
            let header = scanner.bytes(nal.range)[0]
            guard header & 0x80 == 0 else {
                throw MediaFileError(.malformed, format: AnnexBScanner.format, offset: nal.offset, "NAL unit has forbidden_zero_bit set")
            }
            let type = header & 0x1F
            if !frame.nalUnits.isEmpty && startsAccessUnit(type: type, nal: nal, afterSlice: hasSlice) { break }
            frame.data.append(contentsOf: nal.startCodeLength == 4 ? Self.longStartCode : Self.shortStartCode)
            let payloadStart = frame.data.count
            frame.data.append(contentsOf: scanner.bytes(nal.range))
            frame.nalUnits.append(payloadStart ..< frame.data.count)
            pending = nil
            switch type {
            case 1: hasSlice = true
            case 5: hasSlice = true; isKeyframe = true
            case 7:
                let range = payloadStart ..< frame.data.count
                sps = try frame.data.withBytes { (raw) throws(MediaFileError) in
                    try H264SPS.parse(UnsafeRawBufferPointer(rebasing: raw[range]))
                }
            default: break
            }
        }
        guard !frame.nalUnits.isEmpty else { return false }
        frame.codec = .h264
        frame.isKeyframe = isKeyframe
        frame.timestamp = MediaMath.timestamp(ticks: Int64(framesRead), numerator: Int64(frameRateDenominator),
                                              denominator: Int64(frameRateNumerator))
        frame.duration = TimeDelta(microseconds: MediaMath.rescale(1_000_000, Int64(frameRateDenominator), Int64(frameRateNumerator)))
        frame.width = sps?.width ?? 0
        frame.height = sps?.height ?? 0
        frame.vp8 = nil
        frame.vp9 = nil
        framesRead += 1
        return true
    }

    private static let shortStartCode: [UInt8] = [0, 0, 1]
    private static let longStartCode: [UInt8] = [0, 0, 0, 1]

    private func startsAccessUnit(type: UInt8, nal: AnnexBScanner.NALUnit, afterSlice: Bool) -> Bool {
        switch type {
        case 9: return true  // access unit delimiter
        case 6, 7, 8, 14...18: return afterSlice  // SEI, SPS, PPS, prefix and reserved types
        case 1, 5:
            // first_mb_in_slice is ue(v); it is 0 exactly when the first slice-header bit is 1.
            guard afterSlice, nal.range.count > 1 else { return false }
            return scanner.bytes(nal.range)[1] & 0x80 != 0
        default: return false
        }
    }
}
