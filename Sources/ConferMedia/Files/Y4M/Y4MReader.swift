/// Reads YUV4MPEG2 (Y4M) video, 4:2:0 only, one pooled ``VideoFrame`` at a time.
///
/// Frames are read straight into the planes of frames from a ``FramePool`` the reader owns,
/// so reading allocates nothing per frame once the pool is warm. Timestamps follow the
/// header's frame rate: frame `n` is at `n × den / num` seconds.
public final class Y4MReader {
    /// The longest header or frame-header line accepted.
    static let maxLineLength = 4096

    /// The stream header.
    public let header: Y4MHeader
    /// Number of frames, computed from the input size when it is known and every frame
    /// header is the plain "FRAME\n"; nil otherwise. A truncated last frame is not counted.
    public let frameCount: Int?
    /// How many frames ``next()`` has returned.
    public private(set) var framesRead = 0
    /// The pool frames are drawn from; its frames recycle once callers drop them.
    public let pool: FramePool
    private let source: any ByteSource
    private var line: [UInt8] = []

    /// Opens the Y4M file at `path`.
    public convenience init(path: String, poolCapacity: Int = 4) throws(MediaFileError) {
        try self.init(source: FileByteSource(path: path), poolCapacity: poolCapacity)
    }

    /// Reads Y4M from `bytes`.
    public convenience init(bytes: [UInt8], poolCapacity: Int = 4) throws(MediaFileError) {
        try self.init(source: MemoryByteSource(bytes), poolCapacity: poolCapacity)
    }

    /// Reads Y4M from `source`, starting with its header.
    public init(source: any ByteSource, poolCapacity: Int = 4) throws(MediaFileError) {
        self.source = source
        line.reserveCapacity(256)
        let start = source.position
        guard try Self.readLine(from: source, into: &line, what: "stream header") else {
            throw MediaFileError(.truncated, format: "Y4M", offset: start, "input is empty")
        }
        header = try Y4MHeader.parse(line[...], offset: start)
        pool = FramePool(width: header.width, height: header.height, capacity: poolCapacity)
        let frameBytes = 6 + pool.layout.packedByteCount
        frameCount = source.remaining.map { $0 / frameBytes }
    }

    /// The next frame, or nil at the end of the input.
    ///
    /// Throws `.truncated` if the input ends inside a frame and `.malformed` if a frame does
    /// not start with "FRAME".
    public func next() throws(MediaFileError) -> VideoFrame? {
        let start = source.position
        guard try Self.readLine(from: source, into: &line, what: "frame header") else { return nil }
        guard line.count >= 5, line[0..<5].elementsEqual("FRAME".utf8), line.count == 5 || line[5] == UInt8(ascii: " ") else {
            throw MediaFileError(.malformed, format: "Y4M", offset: start, "frame \(framesRead) does not start with FRAME")
        }
        let layout = pool.layout
        // Check before taking a frame, so a hostile size on a short input allocates nothing.
        if let remaining = source.remaining, remaining < layout.packedByteCount {
            throw MediaFileError(.truncated, format: "Y4M", offset: source.position,
                                 "frame \(framesRead) has \(remaining) of \(layout.packedByteCount) bytes")
        }
        let frame = pool.makeFrame(timestamp: MediaMath.timestamp(
            ticks: Int64(framesRead), numerator: Int64(header.frameRateDenominator), denominator: Int64(header.frameRateNumerator)))
        try readPlane(frame.y)
        try readPlane(frame.u)
        try readPlane(frame.v)
        framesRead += 1
        return frame.finish()
    }

    private func readPlane(_ plane: MutableImagePlane) throws(MediaFileError) {
        if plane.stride == plane.width {
            try source.readFully(UnsafeMutableRawBufferPointer(start: plane.base, count: plane.width * plane.height),
                                 format: "Y4M", what: "frame \(framesRead)")
        } else {
            for row in 0..<plane.height {
                try source.readFully(UnsafeMutableRawBufferPointer(plane.row(row)), format: "Y4M", what: "frame \(framesRead)")
            }
        }
    }

    /// Reads bytes up to a newline into `line` (without the newline). Returns false if the
    /// input was already at its end; throws if it ends mid-line or the line is too long.
    static func readLine(from source: any ByteSource, into line: inout [UInt8], what: String) throws(MediaFileError) -> Bool {
        line.removeAll(keepingCapacity: true)
        let start = source.position
        var byte: UInt8 = 0
        while true {
            let n = try withUnsafeMutableBytes(of: &byte) { (raw) throws(MediaFileError) -> Int in try source.read(into: raw) }
            if n == 0 {
                if line.isEmpty { return false }
                throw MediaFileError(.truncated, format: "Y4M", offset: start, "input ended inside the \(what)")
            }
            if byte == UInt8(ascii: "\n") { return true }
            guard line.count < maxLineLength else {
                throw MediaFileError(.malformed, format: "Y4M", offset: start, "\(what) is longer than \(maxLineLength) bytes")
            }
            line.append(byte)
        }
    }
}
