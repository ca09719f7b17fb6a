public import ConferMedia
/// A summary of a media file, found by reading its magic bytes and headers: what
/// `confer probe` prints.
public struct MediaFileInfo: Sendable, Equatable, Codable {
    /// The container or stream formats ConferMedia reads.
    public enum Format: String, Sendable, Codable {
        /// YUV4MPEG2 raw video.
        case y4m
        /// RIFF WAVE audio.
        case wav
        /// IVF (VP8/VP9).
        case ivf
        /// H.264 Annex-B elementary stream.
        case h264 = "h264-annexb"
        /// Ogg Opus audio.
        case oggOpus = "ogg-opus"
    }

    /// The file's format.
    public var format: Format
    /// The codec or sample encoding: "i420", "pcm16", "float32", "vp8", "vp9", "h264", "opus".
    public var codec: String
    /// Picture width (video).
    public var width: Int?
    /// Picture height (video).
    public var height: Int?
    /// Frames per second (video); for H.264 the rate assumed, since Annex B has none.
    public var frameRate: Double?
    /// Video frames, or audio sample frames at the file's own rate.
    public var frameCount: Int?
    /// How long the file plays.
    public var duration: TimeDelta?
    /// The file's own audio sample rate (audio).
    public var sampleRate: Int?
    /// Audio channels (audio).
    public var channels: Int?
    /// Keyframes, where counting them only needs frame headers (IVF, H.264).
    public var keyframeCount: Int?

    /// A summary with only the format and codec set.
    public init(format: Format, codec: String) {
        self.format = format
        self.codec = codec
    }

    /// Probes the file at `path`, by its first bytes rather than its extension.
    /// Annex B has no frame rate, so H.264 durations assume `h264FrameRate`.
    public static func probe(path: String, h264FrameRate: Int = 30) throws(MediaFileError) -> MediaFileInfo {
        let magic = try FileByteSource(path: path).readMagic()
        return try probe(magic: magic, h264FrameRate: h264FrameRate, open: { () throws(MediaFileError) in try FileByteSource(path: path) },
                         openOgg: { () throws(MediaFileError) in try OggOpusReader(path: path) })
    }

    /// Probes a file held in memory.
    public static func probe(bytes: [UInt8], h264FrameRate: Int = 30) throws(MediaFileError) -> MediaFileInfo {
        try probe(magic: Array(bytes.prefix(16)), h264FrameRate: h264FrameRate, open: { MemoryByteSource(bytes) },
                  openOgg: { () throws(MediaFileError) in try OggOpusReader(bytes: bytes) })
    }

    /// The format the first bytes of a file announce, or nil.
    public static func detectFormat(magic: [UInt8]) -> Format? {
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let tag = Array(text.utf8)
            return magic.count >= offset + tag.count && Array(magic[offset ..< offset + tag.count]) == tag
        }
        if starts("YUV4MPEG2") { return .y4m }
        if starts("RIFF") && starts("WAVE", at: 8) { return .wav }
        if starts("DKIF") { return .ivf }
        if starts("OggS") { return .oggOpus }
        // Annex B starts with a start code: at least two zero bytes, then 0x01.
        let zeros = magic.prefix { $0 == 0 }.count
        if zeros >= 2, zeros < magic.count, magic[zeros] == 1 { return .h264 }
        return nil
    }

    private static func probe(magic: [UInt8], h264FrameRate: Int, open: () throws(MediaFileError) -> any ByteSource,
                              openOgg: () throws(MediaFileError) -> OggOpusReader) throws(MediaFileError) -> MediaFileInfo {
        if magic.isEmpty { throw MediaFileError(.truncated, format: "probe", offset: 0, "input is empty") }
        guard let format = detectFormat(magic: magic) else {
            let hex = magic.prefix(8).map { String($0, radix: 16).leftPadded(2) }.joined(separator: " ")
            throw MediaFileError(.unsupported, format: "probe", offset: 0, "unrecognized format (starts with \(hex))")
        }
        switch format {
        case .y4m: return try y4m(Y4MReader(source: open()))
        case .wav: return try wav(WAVInfo.read(from: open()))
        case .ivf: return try ivf(IVFReader(source: open()))
        case .h264: return try h264(AnnexBReader(source: open(), frameRateNumerator: h264FrameRate))
        case .oggOpus: return ogg(try openOgg())
        }
    }

    private static func y4m(_ reader: Y4MReader) -> MediaFileInfo {
        var info = MediaFileInfo(format: .y4m, codec: "i420")
        let h = reader.header
        info.width = h.width
        info.height = h.height
        info.frameRate = h.frameRate
        info.frameCount = reader.frameCount
        info.duration = reader.frameCount.map {
            TimeDelta(microseconds: MediaMath.rescale(Int64($0), Int64(h.frameRateDenominator) * 1_000_000, Int64(h.frameRateNumerator)))
        }
        return info
    }

    private static func wav(_ wav: WAVInfo) -> MediaFileInfo {
        var info = MediaFileInfo(format: .wav, codec: wav.sampleFormat.rawValue)
        info.sampleRate = wav.sampleRate
        info.channels = wav.channels
        info.frameCount = wav.frameCount
        info.duration = wav.duration
        return info
    }

    private static func ivf(_ reader: IVFReader) throws(MediaFileError) -> MediaFileInfo {
        let h = reader.header
        var info = MediaFileInfo(format: .ivf, codec: h.codec.rawValue)
        info.width = h.width
        info.height = h.height
        var count = 0
        var keyframes = 0
        var first: Int64?
        var last: Int64 = 0
        while let frame = try reader.skipFrame() {
            count += 1
            if frame.isKeyframe { keyframes += 1 }
            if first == nil { first = frame.pts }
            last = frame.pts
        }
        info.frameCount = count
        info.keyframeCount = keyframes
        if let first, count > 1, last > first {
            // n frames span n − 1 intervals between first and last pts, plus the last frame's own.
            // pts come from the file: a hostile span must not overflow (rescale clamps instead).
            let (span, spanOverflow) = last.subtractingReportingOverflow(first)
            let ticks = spanOverflow ? Int64.max : MediaMath.rescale(span, Int64(h.timebaseNumerator), 1)
            info.duration = TimeDelta(microseconds: MediaMath.rescale(
                ticks, Int64(count) * 1_000_000, Int64(count - 1) * Int64(h.timebaseDenominator)))
            info.frameRate = Double(count - 1) * Double(h.timebaseDenominator) / Double(ticks)
        }
        return info
    }

    private static func h264(_ reader: AnnexBReader) throws(MediaFileError) -> MediaFileInfo {
        var info = MediaFileInfo(format: .h264, codec: "h264")
        var frame = EncodedFrame(codec: .h264)
        var keyframes = 0
        while try reader.read(into: &frame) {
            if frame.isKeyframe { keyframes += 1 }
        }
        info.width = reader.sps?.width
        info.height = reader.sps?.height
        info.frameRate = Double(reader.frameRateNumerator) / Double(reader.frameRateDenominator)
        info.frameCount = reader.framesRead
        info.keyframeCount = keyframes
        info.duration = TimeDelta(microseconds: MediaMath.rescale(
            Int64(reader.framesRead), Int64(reader.frameRateDenominator) * 1_000_000, Int64(reader.frameRateNumerator)))
        return info
    }

    private static func ogg(_ reader: OggOpusReader) -> MediaFileInfo {
        var info = MediaFileInfo(format: .oggOpus, codec: "opus")
        info.sampleRate = conferSampleRate
        info.channels = reader.channels
        info.frameCount = reader.frameCount
        info.duration = reader.duration
        return info
    }
}

extension ByteSource {
    /// The first 16 bytes (fewer if the input is shorter).
    func readMagic() throws(MediaFileError) -> [UInt8] {
        var magic = [UInt8](repeating: 0, count: 16)
        let n = try magic.withMutableBytes { (raw) throws(MediaFileError) -> Int in try readUpTo(raw) }
        return Array(magic.prefix(n))
    }
}
