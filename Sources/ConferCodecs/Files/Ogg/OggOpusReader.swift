internal import COpus
public import ConferMedia

/// Decodes an Ogg Opus file with libopusfile into 48 kHz ``AudioFrame``s with the file's
/// channel count (mono or stereo).
public final class OggOpusReader {
    /// 1 or 2.
    public let channels: Int
    /// The sample rate the encoder's input had, as the header records it (0 if unknown);
    /// decoding is always at 48 kHz.
    public let inputSampleRate: Int
    /// Total 48 kHz sample frames, when the input is seekable (files and memory are).
    public let frameCount: Int?
    /// Sample frames decoded so far.
    public private(set) var framesRead = 0
    private let file: OggOpusFileHandle

    /// How long the audio plays, when known.
    public var duration: TimeDelta? {
        frameCount.map { TimeDelta(microseconds: Int64($0) * 1_000_000 / Int64(conferSampleRate)) }
    }

    /// Opens the Ogg Opus file at `path`.
    public convenience init(path: String) throws(MediaFileError) {
        try self.init(handle: OggOpusFileHandle(path: path))
    }

    /// Decodes Ogg Opus from `bytes` (copied once into memory the reader owns).
    public convenience init(bytes: [UInt8]) throws(MediaFileError) {
        try self.init(handle: OggOpusFileHandle(bytes: bytes))
    }

    /// Where the input ends inside an Ogg page, if it does: reported once all complete pages are decoded.
    private let truncationOffset: Int?

    private init(handle: OggOpusFileHandle) throws(MediaFileError) {
        file = handle
        truncationOffset = handle.truncationOffset
        guard let head = op_head(handle.pointer, -1) else {
            throw MediaFileError(.malformed, format: OpusLibraryErrors.format, "stream has no OpusHead")
        }
        let count = Int(head.pointee.channel_count)
        guard count == 1 || count == 2 else {
            throw MediaFileError(.unsupported, format: OpusLibraryErrors.format, "\(count) channels; Confer reads mono or stereo")
        }
        channels = count
        inputSampleRate = Int(head.pointee.input_sample_rate)
        let total = op_pcm_total(handle.pointer, -1)
        frameCount = total >= 0 ? Int(total) : nil
    }

    /// The next `frameCount` frames (fewer at the end), or nil when all are read.
    public func next(frameCount: Int = 960) throws(MediaFileError) -> AudioFrame? {
        var frame = AudioFrame(samples: [], channels: channels)
        return try read(into: &frame, frameCount: frameCount) ? frame : nil
    }

    /// Replaces `frame`'s samples with the next `frameCount` frames, reusing its storage.
    /// Returns false, leaving `frame` empty, when all are read.
    public func read(into frame: inout AudioFrame, frameCount: Int) throws(MediaFileError) -> Bool {
        precondition(frameCount > 0, "read at least one frame")
        if frame.channels != channels { frame = AudioFrame(samples: [], channels: channels) }
        frame.timestamp = Timestamp(microseconds: Int64(framesRead) * 1_000_000 / Int64(conferSampleRate))
        let ch = channels
        // Decode straight into the frame's storage: size it, fill it, then trim.
        frame.samples.removeAll(keepingCapacity: true)
        frame.samples.append(contentsOf: repeatElement(0, count: frameCount * ch))
        var filled = 0
        let handle = file
        let result: Int32 = frame.samples.withUnsafeMutableBufferPointer { buffer in
            while filled < frameCount {
                let out = buffer.baseAddress! + filled * ch
                let room = Int32((frameCount - filled) * ch)
                var link: Int32 = 0
                let n = ch == 2 ? op_read_stereo(handle.pointer, out, room) : op_read(handle.pointer, out, room, &link)
                if n < 0 { return n }
                if n == 0 { break }
                // A chained stream may switch to stereo; mono readers cannot follow it.
                if ch == 1, let head = op_head(handle.pointer, link), head.pointee.channel_count != 1 { return OP_EIMPL }
                filled += Int(n)
            }
            return 0
        }
        frame.samples.removeLast((frameCount - filled) * ch)
        guard result == 0 else { throw OpusLibraryErrors.decoder(result, "decoding after sample frame \(framesRead + filled)") }
        framesRead += filled
        if filled == 0, let truncationOffset {
            throw MediaFileError(.truncated, format: OpusLibraryErrors.format, offset: truncationOffset,
                                 "input ends inside an Ogg page after \(framesRead) decoded sample frames")
        }
        return filled > 0
    }
}

/// Owns one libopusfile decoder (and, for memory input, the bytes it reads); freed in deinit.
final class OggOpusFileHandle {
    let pointer: OpaquePointer
    /// Where the input ends inside an Ogg page, if it does.
    let truncationOffset: Int?
    private let memory: UnsafeMutableRawBufferPointer?

    init(path: String) throws(MediaFileError) {
        let scan = try FileByteSource(path: path)
        // libopusfile reports an empty file as "not Ogg Opus"; name it for what it is.
        if scan.length == 0 { throw MediaFileError(.truncated, format: OpusLibraryErrors.format, offset: 0, "input is empty") }
        truncationOffset = try OggPageScan.truncationOffset(in: scan)
        var error: Int32 = 0
        guard let pointer = op_open_file(path, &error) else {
            throw Self.openError(error, "opening \(path)", truncationOffset: truncationOffset)
        }
        self.pointer = pointer
        memory = nil
    }

    init(bytes: [UInt8]) throws(MediaFileError) {
        if bytes.isEmpty { throw MediaFileError(.truncated, format: OpusLibraryErrors.format, offset: 0, "input is empty") }
        truncationOffset = try OggPageScan.truncationOffset(in: MemoryByteSource(bytes))
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        memory.copyBytes(from: bytes)
        var error: Int32 = 0
        guard let pointer = op_open_memory(memory.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &error) else {
            memory.deallocate()
            throw Self.openError(error, "opening the stream", truncationOffset: truncationOffset)
        }
        self.pointer = pointer
        self.memory = memory
    }

    deinit {
        op_free(pointer)
        memory?.deallocate()
    }

    /// A failed open of a cut-off stream is reported as truncation, keeping libopusfile's code.
    private static func openError(_ code: Int32, _ action: String, truncationOffset: Int?) -> MediaFileError {
        let error = OpusLibraryErrors.decoder(code, action)
        guard let truncationOffset else { return error }
        return MediaFileError(.truncated, format: error.format, offset: truncationOffset,
                              "input ends inside an Ogg page; \(error.detail)")
    }
}
