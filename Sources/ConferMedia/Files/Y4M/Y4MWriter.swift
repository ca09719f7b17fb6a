/// Writes YUV4MPEG2 (Y4M) 4:2:0 video to a file or an in-memory sink.
public final class Y4MWriter {
    /// The stream header written at the start.
    public let header: Y4MHeader
    /// How many frames have been written.
    public private(set) var framesWritten = 0
    private let sink: any ByteSink
    private var finished = false

    /// Creates `path` and writes a header for `width` × `height` at `num/den` frames per second.
    public convenience init(path: String, width: Int, height: Int,
                            frameRateNumerator: Int = 30, frameRateDenominator: Int = 1) throws(MediaFileError) {
        try self.init(sink: FileByteSink(path: path), header: Y4MHeader(
            width: width, height: height, frameRateNumerator: frameRateNumerator, frameRateDenominator: frameRateDenominator))
    }

    /// Writes `header` to `sink`; frames follow with ``write(_:)``.
    public init(sink: any ByteSink, header: Y4MHeader) throws(MediaFileError) {
        guard header.width > 0, header.height > 0, header.frameRateNumerator > 0, header.frameRateDenominator > 0 else {
            throw MediaFileError(.malformed, format: "Y4M", "cannot write size \(header.width)×\(header.height) at \(header.frameRateNumerator):\(header.frameRateDenominator) fps")
        }
        guard Y4MHeader.supportedChroma.contains(header.chroma) else {
            throw MediaFileError(.unsupported, format: "Y4M", "chroma C\(header.chroma) is not supported; Confer writes 4:2:0 only")
        }
        self.sink = sink
        self.header = header
        try sink.writeASCII(header.line)
    }

    deinit { try? finish() }

    /// Appends `frame`, which must have the header's size.
    public func write(_ frame: VideoFrame) throws(MediaFileError) {
        guard frame.width == header.width, frame.height == header.height else {
            throw MediaFileError(.malformed, format: "Y4M", offset: sink.position,
                                 "frame is \(frame.width)×\(frame.height) but the stream is \(header.width)×\(header.height)")
        }
        try sink.write(Self.frameTag)
        try frame.withPlanes { (y, u, v) throws(MediaFileError) in
            try writePlane(y)
            try writePlane(u)
            try writePlane(v)
        }
        framesWritten += 1
    }

    private static let frameTag: [UInt8] = Array("FRAME\n".utf8)

    private func writePlane(_ plane: ImagePlane) throws(MediaFileError) {
        if plane.stride == plane.width {
            try sink.write(UnsafeRawBufferPointer(start: plane.base, count: plane.width * plane.height))
        } else {
            for row in 0..<plane.height { try sink.write(UnsafeRawBufferPointer(plane.row(row))) }
        }
    }

    /// Flushes everything written; the writer takes no more frames afterwards.
    public func finish() throws(MediaFileError) {
        guard !finished else { return }
        finished = true
        try sink.flush()
    }
}
