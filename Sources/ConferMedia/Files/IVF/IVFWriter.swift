/// Writes VP8 or VP9 ``EncodedFrame``s as an IVF file; ``finish()`` patches the length.
public final class IVFWriter {
    /// The file header (its length is patched by ``finish()``).
    public private(set) var header: IVFHeader
    /// Frames written so far.
    public private(set) var framesWritten = 0
    private let sink: any ByteSink
    private let headerStart: Int
    private var finished = false
    private var firstPTS: Int64?
    private var lastPTS: Int64 = 0

    /// Creates `path` for `codec` frames of `width` × `height`, with pts in ticks of
    /// `timebaseNumerator / timebaseDenominator` seconds.
    public convenience init(path: String, codec: Codec, width: Int, height: Int,
                            timebaseNumerator: Int = 1, timebaseDenominator: Int = 90_000) throws(MediaFileError) {
        try self.init(sink: FileByteSink(path: path), header: IVFHeader(
            codec: codec, width: width, height: height, timebaseNumerator: timebaseNumerator, timebaseDenominator: timebaseDenominator))
    }

    /// Writes `header` to `sink`; frames follow with ``write(_:)``.
    public init(sink: any ByteSink, header: IVFHeader) throws(MediaFileError) {
        guard let fourCC = IVFHeader.fourCC(for: header.codec) else {
            throw MediaFileError(.unsupported, format: IVFHeader.format, "IVF carries VP8 or VP9, not \(header.codec)")
        }
        guard (1...0xFFFF).contains(header.width), (1...0xFFFF).contains(header.height) else {
            throw MediaFileError(.unsupported, format: IVFHeader.format, "picture size \(header.width)×\(header.height) does not fit IVF's 16-bit fields")
        }
        guard (1...Int(UInt32.max)).contains(header.timebaseNumerator), (1...Int(UInt32.max)).contains(header.timebaseDenominator) else {
            throw MediaFileError(.malformed, format: IVFHeader.format, "time base \(header.timebaseNumerator)/\(header.timebaseDenominator) is not a positive 32-bit fraction")
        }
        self.sink = sink
        self.header = header
        self.header.length = 0
        headerStart = sink.position
        try sink.writeASCII("DKIF")
        try sink.writeLittleEndian(UInt16(0))
        try sink.writeLittleEndian(UInt16(IVFHeader.size))
        try sink.writeLittleEndian(fourCC)
        try sink.writeLittleEndian(UInt16(header.width))
        try sink.writeLittleEndian(UInt16(header.height))
        try sink.writeLittleEndian(UInt32(header.timebaseDenominator))
        try sink.writeLittleEndian(UInt32(header.timebaseNumerator))
        try sink.writeLittleEndian(UInt32(0))  // length, patched by finish()
        try sink.writeLittleEndian(UInt32(0))
    }

    deinit { try? finish() }

    /// Appends `frame`; its timestamp becomes the pts, rounded to the nearest tick.
    public func write(_ frame: EncodedFrame) throws(MediaFileError) {
        guard frame.codec == header.codec else {
            throw MediaFileError(.malformed, format: IVFHeader.format, offset: sink.position,
                                 "frame is \(frame.codec) but the file is \(header.codec)")
        }
        guard frame.data.count <= IVFHeader.maxFrameSize else {
            throw MediaFileError(.unsupported, format: IVFHeader.format, "frame of \(frame.data.count) bytes exceeds \(IVFHeader.maxFrameSize)")
        }
        let num = Int64(header.timebaseNumerator) * 1_000_000
        // Twice the pts, so that halving it rounds to the nearest tick (half away from zero).
        let doubled = MediaMath.rescale(frame.timestamp.microseconds, 2 * Int64(header.timebaseDenominator), num)
        let pts = doubled / 2 + doubled % 2
        try sink.writeLittleEndian(UInt32(frame.data.count))
        try sink.writeLittleEndian(pts)
        try sink.write(frame.data)
        if firstPTS == nil { firstPTS = pts }
        lastPTS = pts
        framesWritten += 1
    }

    /// The length field as FFmpeg writes it: the duration in ticks, n frames spanning n − 1
    /// intervals between the first and last pts plus the last frame's own. With one tick per
    /// frame that is the frame count, as libvpx writes it.
    private var length: Int {
        guard let firstPTS, framesWritten > 1, lastPTS > firstPTS else { return framesWritten }
        let span = Double(lastPTS) - Double(firstPTS)
        return Int(min(Double(UInt32.max), (span * Double(framesWritten) / Double(framesWritten - 1)).rounded()))
    }

    /// Writes the length into the header and flushes; no more frames afterwards.
    public func finish() throws(MediaFileError) {
        guard !finished else { return }
        finished = true
        header.length = length
        let end = sink.position
        try sink.seek(to: headerStart + 24)
        try sink.writeLittleEndian(UInt32(truncatingIfNeeded: header.length))
        try sink.seek(to: end)
        try sink.flush()
    }
}
