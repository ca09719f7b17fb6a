/// Writes 48 kHz mono or stereo ``AudioFrame``s as a WAV file, 16-bit PCM or 32-bit float.
///
/// Sizes in the RIFF header are patched in by ``finish()``.
public final class WAVWriter {
    /// 1 or 2.
    public let channels: Int
    /// How samples are stored.
    public let sampleFormat: WAVSampleFormat
    /// Sample frames written so far.
    public private(set) var framesWritten = 0
    private let sink: any ByteSink
    private let headerStart: Int
    private var dataSizeOffset = 0
    private var factOffset: Int?
    private var scratch: [UInt8] = []
    private var finished = false

    /// Creates `path` for `channels`-channel 48 kHz audio stored as `sampleFormat`.
    public convenience init(path: String, channels: Int, sampleFormat: WAVSampleFormat = .pcm16) throws(MediaFileError) {
        try self.init(sink: FileByteSink(path: path), channels: channels, sampleFormat: sampleFormat)
    }

    /// Writes a WAV header to `sink`; samples follow with ``write(_:)``.
    public init(sink: any ByteSink, channels: Int, sampleFormat: WAVSampleFormat = .pcm16) throws(MediaFileError) {
        guard channels == 1 || channels == 2 else {
            throw MediaFileError(.unsupported, format: WAVInfo.format, "\(channels) channels; Confer writes mono or stereo")
        }
        self.sink = sink
        self.channels = channels
        self.sampleFormat = sampleFormat
        headerStart = sink.position
        try writeHeader()
    }

    deinit { try? finish() }

    private func writeHeader() throws(MediaFileError) {
        let blockAlign = channels * sampleFormat.bytesPerSample
        try sink.writeASCII("RIFF")
        try sink.writeLittleEndian(UInt32(0))  // patched by finish()
        try sink.writeASCII("WAVE")
        try sink.writeASCII("fmt ")
        // Non-PCM formats carry cbSize (and a fact chunk) per the RIFF rules for WAVE.
        try sink.writeLittleEndian(UInt32(sampleFormat == .pcm16 ? 16 : 18))
        try sink.writeLittleEndian(sampleFormat.formatTag)
        try sink.writeLittleEndian(UInt16(channels))
        try sink.writeLittleEndian(UInt32(conferSampleRate))
        try sink.writeLittleEndian(UInt32(conferSampleRate * blockAlign))
        try sink.writeLittleEndian(UInt16(blockAlign))
        try sink.writeLittleEndian(UInt16(8 * sampleFormat.bytesPerSample))
        if sampleFormat == .float32 {
            try sink.writeLittleEndian(UInt16(0))
            try sink.writeASCII("fact")
            try sink.writeLittleEndian(UInt32(4))
            factOffset = sink.position
            try sink.writeLittleEndian(UInt32(0))
        }
        try sink.writeASCII("data")
        dataSizeOffset = sink.position
        try sink.writeLittleEndian(UInt32(0))
    }

    /// Appends the samples of `frame`, which must have the writer's channel count.
    public func write(_ frame: AudioFrame) throws(MediaFileError) {
        guard frame.channels == channels else {
            throw MediaFileError(.malformed, format: WAVInfo.format, offset: sink.position,
                                 "frame has \(frame.channels) channels but the file has \(channels)")
        }
        let dataBytes = (framesWritten + frame.frameCount) * channels * sampleFormat.bytesPerSample
        guard dataBytes <= Int(UInt32.max) - 64 else {
            throw MediaFileError(.unsupported, format: WAVInfo.format, "audio would exceed the 4 GiB RIFF limit")
        }
        let byteCount = frame.samples.count * sampleFormat.bytesPerSample
        if scratch.count < byteCount { scratch = [UInt8](repeating: 0, count: byteCount) }
        let format = sampleFormat
        frame.samples.withUnsafeBufferPointer { samples in
            scratch.withUnsafeMutableBytes { out in
                for (i, s) in samples.enumerated() {
                    switch format {
                    case .pcm16: out.storeBytes(of: s.littleEndian, toByteOffset: 2 * i, as: Int16.self)
                    case .float32: out.storeBytes(of: (Float(s) / 32768).bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
                    }
                }
            }
        }
        try scratch.withBytes { (raw) throws(MediaFileError) in try sink.write(UnsafeRawBufferPointer(rebasing: raw[..<byteCount])) }
        framesWritten += frame.frameCount
    }

    /// Patches the header's sizes and flushes; the writer takes no more samples afterwards.
    public func finish() throws(MediaFileError) {
        guard !finished else { return }
        finished = true
        let end = sink.position
        let dataBytes = framesWritten * channels * sampleFormat.bytesPerSample
        try sink.seek(to: headerStart + 4)
        try sink.writeLittleEndian(UInt32(end - headerStart - 8))
        if let factOffset {
            try sink.seek(to: factOffset)
            try sink.writeLittleEndian(UInt32(framesWritten))
        }
        try sink.seek(to: dataSizeOffset)
        try sink.writeLittleEndian(UInt32(dataBytes))
        try sink.seek(to: end)
        try sink.flush()
    }
}
