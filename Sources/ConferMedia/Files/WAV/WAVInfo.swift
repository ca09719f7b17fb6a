/// How samples are stored in a WAV file Confer reads or writes.
public enum WAVSampleFormat: String, Sendable, Codable {
    /// Signed 16-bit little-endian integers (format tag 1).
    case pcm16
    /// IEEE 754 32-bit little-endian floats in −1…1 (format tag 3).
    case float32

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int { self == .pcm16 ? 2 : 4 }
    /// The RIFF format tag.
    var formatTag: UInt16 { self == .pcm16 ? 1 : 3 }
}

/// What a WAV file's header says.
public struct WAVInfo: Sendable, Equatable, Codable {
    /// The file's own sample rate in Hz (the reader converts to 48 kHz).
    public var sampleRate: Int
    /// 1 or 2.
    public var channels: Int
    /// How samples are stored.
    public var sampleFormat: WAVSampleFormat
    /// Whether the fmt chunk is WAVE_FORMAT_EXTENSIBLE.
    public var isExtensible: Bool
    /// Sample frames in the file at its own rate; nil when the data size is unknown (streamed WAV).
    public var frameCount: Int?
    /// Offset of the first sample byte in the input.
    public var dataOffset: Int

    /// How long the audio plays, when the frame count is known.
    public var duration: TimeDelta? {
        frameCount.map { TimeDelta(microseconds: MediaMath.rescale(Int64($0), 1_000_000, Int64(sampleRate))) }
    }
}

extension WAVInfo {
    static let format = "WAV"
    /// Rates outside this range are not audio Confer handles (and would strain the resampler).
    static let sampleRates = 1_000...768_000
    /// The tail of the KSDATAFORMAT_SUBTYPE GUIDs; the first two bytes are the format tag.
    static let subformatGUIDTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    /// Reads the RIFF header and chunks up to the start of the sample data.
    package static func read(from source: any ByteSource) throws(MediaFileError) -> WAVInfo {
        let start = source.position
        if source.remaining == 0 { throw MediaFileError(.truncated, format: format, offset: start, "input is empty") }
        let riff = try source.readLittleEndian(UInt32.self, format: format, what: "the RIFF tag")
        _ = try source.readLittleEndian(UInt32.self, format: format, what: "the RIFF size")
        let wave = try source.readLittleEndian(UInt32.self, format: format, what: "the WAVE tag")
        guard riff != fourCC("RIFX"), riff != fourCC("RF64") else {
            throw MediaFileError(.unsupported, format: format, offset: start,
                                 "\(fourCCText(riff)) files are not supported; Confer reads little-endian RIFF WAV")
        }
        guard riff == fourCC("RIFF"), wave == fourCC("WAVE") else {
            throw MediaFileError(.malformed, format: format, offset: start,
                                 "not a RIFF/WAVE file (starts with \(fourCCText(riff)) … \(fourCCText(wave)))")
        }
        var fmt: (rate: Int, channels: Int, sampleFormat: WAVSampleFormat, extensible: Bool)?
        while true {
            let chunkStart = source.position
            guard source.remaining.map({ $0 >= 8 }) ?? true else {
                throw MediaFileError(.truncated, format: format, offset: chunkStart, "input ended before the data chunk")
            }
            let id = try source.readLittleEndian(UInt32.self, format: format, what: "a chunk id")
            let size = Int(try source.readLittleEndian(UInt32.self, format: format, what: "a chunk size"))
            switch id {
            case fourCC("fmt "):
                guard fmt == nil else {
                    throw MediaFileError(.malformed, format: format, offset: chunkStart, "second fmt chunk")
                }
                fmt = try readFormat(from: source, size: size, at: chunkStart)
            case fourCC("data"):
                guard let fmt else {
                    throw MediaFileError(.malformed, format: format, offset: chunkStart, "data chunk comes before the fmt chunk")
                }
                let frameBytes = fmt.channels * fmt.sampleFormat.bytesPerSample
                // 0xFFFFFFFF is what streaming writers (FFmpeg to a pipe) leave: read to the end.
                let dataBytes: Int? = size == 0xFFFF_FFFF ? source.remaining : size
                return WAVInfo(sampleRate: fmt.rate, channels: fmt.channels, sampleFormat: fmt.sampleFormat,
                               isExtensible: fmt.extensible, frameCount: dataBytes.map { $0 / frameBytes },
                               dataOffset: source.position)
            default:
                // Chunks are padded to an even size.
                try source.skipFully(size + (size & 1), format: format, what: "chunk \(fourCCText(id))")
            }
        }
    }

    private static func readFormat(from source: any ByteSource, size: Int, at offset: Int) throws(MediaFileError)
        -> (rate: Int, channels: Int, sampleFormat: WAVSampleFormat, extensible: Bool)
    {
        guard size >= 16 else {
            throw MediaFileError(.malformed, format: format, offset: offset, "fmt chunk is \(size) bytes; at least 16 are needed")
        }
        var tag = try source.readLittleEndian(UInt16.self, format: format, what: "the format tag")
        let channels = Int(try source.readLittleEndian(UInt16.self, format: format, what: "the channel count"))
        let rate = Int(try source.readLittleEndian(UInt32.self, format: format, what: "the sample rate"))
        _ = try source.readLittleEndian(UInt32.self, format: format, what: "the byte rate")
        let blockAlign = Int(try source.readLittleEndian(UInt16.self, format: format, what: "the block alignment"))
        let bits = Int(try source.readLittleEndian(UInt16.self, format: format, what: "the bits per sample"))
        var consumed = 16
        let extensible = tag == 0xFFFE
        if extensible {
            guard size >= 40 else {
                throw MediaFileError(.malformed, format: format, offset: offset, "WAVE_FORMAT_EXTENSIBLE fmt chunk is \(size) bytes; 40 are needed")
            }
            var ext = [UInt8](repeating: 0, count: 24)
            try ext.withMutableBytes { (raw) throws(MediaFileError) in
                try source.readFully(raw, format: format, what: "the extensible fmt fields")
            }
            consumed += 24
            // ext: cbSize(2) validBits(2) channelMask(4) subformat GUID(16).
            guard Array(ext[10..<24]) == subformatGUIDTail else {
                throw MediaFileError(.unsupported, format: format, offset: offset + 32, "extensible subformat is not a standard PCM/float GUID")
            }
            tag = UInt16(ext[8]) | UInt16(ext[9]) << 8
        }
        try source.skipFully(size - consumed + (size & 1), format: format, what: "the fmt chunk")

        let sampleFormat: WAVSampleFormat
        switch (tag, bits) {
        case (1, 16): sampleFormat = .pcm16
        case (3, 32): sampleFormat = .float32
        default:
            throw MediaFileError(.unsupported, format: format, offset: offset,
                                 "format tag \(tag) with \(bits)-bit samples is not supported; Confer reads 16-bit PCM and 32-bit float")
        }
        guard channels > 0 else { throw MediaFileError(.malformed, format: format, offset: offset, "channel count is 0") }
        guard channels <= 2 else {
            throw MediaFileError(.unsupported, format: format, offset: offset, "\(channels) channels; Confer reads mono or stereo")
        }
        guard rate > 0 else { throw MediaFileError(.malformed, format: format, offset: offset, "sample rate is 0") }
        guard sampleRates.contains(rate) else {
            throw MediaFileError(.unsupported, format: format, offset: offset,
                                 "sample rate \(rate) Hz is outside \(sampleRates.lowerBound)–\(sampleRates.upperBound) Hz")
        }
        guard blockAlign == channels * sampleFormat.bytesPerSample else {
            throw MediaFileError(.malformed, format: format, offset: offset,
                                 "block alignment \(blockAlign) does not match \(channels) × \(bits)-bit samples")
        }
        return (rate, channels, sampleFormat, extensible)
    }

    package static func fourCC(_ text: StaticString) -> UInt32 {
        let p = text.utf8Start
        return UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }

    /// A tag as text when printable, else as hex, for error messages.
    static func fourCCText(_ tag: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> (8 * $0)) }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return "'" + String(decoding: bytes, as: UTF8.self) + "'" }
        return "0x" + bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
    }
}

extension String {
    /// Pads with leading zeros to `width` characters.
    package func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
