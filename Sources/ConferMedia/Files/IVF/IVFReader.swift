/// Reads VP8 or VP9 frames from an IVF file as ``EncodedFrame``s.
///
/// ``read(into:)`` reuses the caller's frame buffer, so a steady read allocates nothing.
public final class IVFReader: ByteSourceReader {
    /// The file header.
    public let header: IVFHeader
    /// Frames read so far.
    public private(set) var framesRead = 0
    private let source: any ByteSource

    /// Reads IVF from `source`, starting with its file header.
    public init(source: any ByteSource) throws(MediaFileError) {
        self.source = source
        header = try IVFHeader.read(from: source)
    }

    /// The next frame, or nil at the end of the input.
    public func next() throws(MediaFileError) -> EncodedFrame? {
        var frame = EncodedFrame(codec: header.codec)
        return try read(into: &frame) ? frame : nil
    }

    /// Replaces `frame` with the next frame, reusing its data buffer. Returns false at the end.
    ///
    /// Throws `.truncated` if the input ends inside a frame and `.malformed` for a frame
    /// larger than ``IVFHeader/maxFrameSize``.
    public func read(into frame: inout EncodedFrame) throws(MediaFileError) -> Bool {
        guard let (size, pts) = try readFrameHeader() else { return false }
        frame.data.removeAll(keepingCapacity: true)
        frame.data.append(contentsOf: repeatElement(0, count: size))
        let format = IVFHeader.format
        let index = framesRead
        try frame.data.withMutableBytes { (buffer) throws(MediaFileError) in
            try source.readFully(buffer, format: format, what: "frame \(index)")
        }
        fill(&frame, pts: pts)
        frame.isKeyframe = VPXBitstream.isKeyframe(frame.data, codec: header.codec)
        framesRead += 1
        return true
    }

    /// Reads the next frame's header and just enough of its data to tell a keyframe,
    /// skipping the rest: a cheap scan for probing. Returns nil at the end.
    public func skipFrame() throws(MediaFileError) -> (pts: Int64, timestamp: Timestamp, size: Int, isKeyframe: Bool)? {
        guard let (size, pts) = try readFrameHeader() else { return nil }
        let peek = min(size, 16)
        let index = framesRead
        let isKeyframe = try withUnsafeTemporaryAllocation(byteCount: peek, alignment: 1) { (buffer) throws(MediaFileError) -> Bool in
            try source.readFully(buffer, format: IVFHeader.format, what: "frame \(index)")
            return VPXBitstream.isKeyframe(UnsafeRawBufferPointer(buffer), codec: header.codec)
        }
        try source.skipFully(size - peek, format: IVFHeader.format, what: "frame \(index)")
        framesRead += 1
        return (pts, timestamp(pts), size, isKeyframe)
    }

    private func readFrameHeader() throws(MediaFileError) -> (Int, Int64)? {
        let start = source.position
        var raw = (UInt32(0), UInt32(0), UInt32(0))
        let n = try withUnsafeMutableBytes(of: &raw) { (buffer) throws(MediaFileError) -> Int in
            try source.readUpTo(UnsafeMutableRawBufferPointer(rebasing: buffer[..<12]))
        }
        if n == 0 { return nil }
        guard n == 12 else {
            throw MediaFileError(.truncated, format: IVFHeader.format, offset: start,
                                 "input ended after \(n) of 12 bytes of the header of frame \(framesRead)")
        }
        let size = Int(UInt32(littleEndian: raw.0))
        let pts = Int64(bitPattern: UInt64(UInt32(littleEndian: raw.1)) | UInt64(UInt32(littleEndian: raw.2)) << 32)
        guard size <= IVFHeader.maxFrameSize else {
            throw MediaFileError(.malformed, format: IVFHeader.format, offset: start,
                                 "frame \(framesRead) claims \(size) bytes; at most \(IVFHeader.maxFrameSize) are allowed")
        }
        // Check before allocating, so a short hostile input cannot make the reader grow a buffer.
        if let remaining = source.remaining, remaining < size {
            throw MediaFileError(.truncated, format: IVFHeader.format, offset: source.position,
                                 "frame \(framesRead) has \(remaining) of \(size) bytes")
        }
        return (size, pts)
    }

    private func timestamp(_ pts: Int64) -> Timestamp {
        MediaMath.timestamp(ticks: pts, numerator: Int64(header.timebaseNumerator), denominator: Int64(header.timebaseDenominator))
    }

    private func fill(_ frame: inout EncodedFrame, pts: Int64) {
        frame.codec = header.codec
        frame.timestamp = timestamp(pts)
        frame.duration = .zero
        frame.width = header.width
        frame.height = header.height
        frame.vp8 = nil
        frame.vp9 = nil
        frame.nalUnits.removeAll(keepingCapacity: true)
    }
}
