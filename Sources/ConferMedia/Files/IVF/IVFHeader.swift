/// The 32-byte file header of an IVF file (the libvpx test container).
public struct IVFHeader: Sendable, Equatable, Codable {
    /// VP8 or VP9.
    public var codec: Codec
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// A pts tick lasts `timebaseNumerator / timebaseDenominator` seconds.
    public var timebaseNumerator: Int
    /// A pts tick lasts `timebaseNumerator / timebaseDenominator` seconds.
    public var timebaseDenominator: Int
    /// The header's length field (0 when its writer never patched it). libvpx writes the
    /// frame count there with a time base of one tick per frame; FFmpeg reads and writes it
    /// as the duration in ticks. The two agree when a tick is one frame; ``IVFWriter``
    /// writes the duration, which is what FFmpeg shows as the file's length.
    public var length: Int

    /// A header for `codec` frames of `width` × `height`.
    public init(codec: Codec, width: Int, height: Int, timebaseNumerator: Int = 1, timebaseDenominator: Int = 90_000, length: Int = 0) {
        self.codec = codec
        self.width = width
        self.height = height
        self.timebaseNumerator = timebaseNumerator
        self.timebaseDenominator = timebaseDenominator
        self.length = length
    }

    static let format = "IVF"
    static let size = 32
    /// The largest frame accepted, so a hostile size field cannot demand gigabytes.
    public static let maxFrameSize = 16 << 20

    static func fourCC(for codec: Codec) -> UInt32? {
        switch codec {
        case .vp8: WAVInfo.fourCC("VP80")
        case .vp9: WAVInfo.fourCC("VP90")
        default: nil
        }
    }

    static func read(from source: any ByteSource) throws(MediaFileError) -> IVFHeader {
        let start = source.position
        if source.remaining == 0 { throw MediaFileError(.truncated, format: format, offset: start, "input is empty") }
        var raw = [UInt8](repeating: 0, count: size)
        try raw.withMutableBytes { (buffer) throws(MediaFileError) in
            try source.readFully(buffer, format: format, what: "the file header")
        }
        func u16(_ at: Int) -> Int { Int(raw[at]) | Int(raw[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        guard u32(0) == WAVInfo.fourCC("DKIF") else {
            throw MediaFileError(.malformed, format: format, offset: start, "missing the DKIF signature (found \(WAVInfo.fourCCText(u32(0))))")
        }
        guard u16(4) == 0 else {
            throw MediaFileError(.unsupported, format: format, offset: start + 4, "version \(u16(4)); Confer reads version 0")
        }
        guard u16(6) == size else {
            throw MediaFileError(.malformed, format: format, offset: start + 6, "header size is \(u16(6)), not 32")
        }
        let codec: Codec
        switch u32(8) {
        case WAVInfo.fourCC("VP80"): codec = .vp8
        case WAVInfo.fourCC("VP90"): codec = .vp9
        default:
            throw MediaFileError(.unsupported, format: format, offset: start + 8,
                                 "codec \(WAVInfo.fourCCText(u32(8))) is not supported; Confer reads VP80 and VP90")
        }
        let header = IVFHeader(codec: codec, width: u16(12), height: u16(14), timebaseNumerator: Int(u32(20)),
                               timebaseDenominator: Int(u32(16)), length: Int(u32(24)))
        guard header.width > 0, header.height > 0 else {
            throw MediaFileError(.malformed, format: format, offset: start + 12, "picture size \(header.width)×\(header.height) is empty")
        }
        guard header.timebaseNumerator > 0, header.timebaseDenominator > 0 else {
            throw MediaFileError(.malformed, format: format, offset: start + 16,
                                 "time base \(header.timebaseNumerator)/\(header.timebaseDenominator) is not positive")
        }
        return header
    }
}
