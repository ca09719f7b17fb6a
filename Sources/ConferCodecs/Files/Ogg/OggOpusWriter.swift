internal import COpus
public import ConferMedia

/// Encodes 48 kHz mono or stereo ``AudioFrame``s into an Ogg Opus file with libopusenc.
///
/// Pages go through a ``ByteSink`` (a file or memory) via libopusenc's callbacks.
public final class OggOpusWriter {
    /// 1 or 2.
    public let channels: Int
    /// Sample frames (per channel) handed to the encoder so far.
    public private(set) var framesWritten = 0
    private let encoder: OggOpusEncoderHandle
    private var finished = false

    /// Creates `path`; `bitrate` in bits/s and `complexity` 0–10, or libopus defaults when nil.
    public convenience init(path: String, channels: Int, bitrate: Int? = nil, complexity: Int? = nil) throws(MediaFileError) {
        try self.init(sink: FileByteSink(path: path), channels: channels, bitrate: bitrate, complexity: complexity)
    }

    /// Writes the stream to `sink`; `bitrate` in bits/s and `complexity` 0–10, or libopus defaults when nil.
    public init(sink: any ByteSink, channels: Int, bitrate: Int? = nil, complexity: Int? = nil) throws(MediaFileError) {
        guard channels == 1 || channels == 2 else {
            throw MediaFileError(.unsupported, format: OpusLibraryErrors.format, "\(channels) channels; Confer writes mono or stereo")
        }
        self.channels = channels
        encoder = try OggOpusEncoderHandle(sink: sink, channels: channels)
        if let bitrate {
            let code = confer_ope_set_bitrate(encoder.pointer, Int32(clamping: bitrate))
            guard code == OPE_OK else { throw OpusLibraryErrors.encoder(code, "setting bitrate \(bitrate)") }
        }
        if let complexity {
            let code = confer_ope_set_complexity(encoder.pointer, Int32(clamping: complexity))
            guard code == OPE_OK else { throw OpusLibraryErrors.encoder(code, "setting complexity \(complexity)") }
        }
    }

    deinit { try? finish() }

    /// Encodes `frame`, which must have the writer's channel count.
    public func write(_ frame: AudioFrame) throws(MediaFileError) {
        guard !finished else { throw MediaFileError(.io, format: OpusLibraryErrors.format, "writer is already finished") }
        guard frame.channels == channels else {
            throw MediaFileError(.malformed, format: OpusLibraryErrors.format, "frame has \(frame.channels) channels but the stream has \(channels)")
        }
        guard frame.frameCount > 0 else { return }
        let code = frame.samples.withUnsafeBufferPointer { ope_encoder_write(encoder.pointer, $0.baseAddress, Int32(frame.frameCount)) }
        try encoder.sinkBox.check()
        guard code == OPE_OK else { throw OpusLibraryErrors.encoder(code, "encoding") }
        framesWritten += frame.frameCount
    }

    /// Encodes what is buffered, ends the stream and flushes; no more frames afterwards.
    public func finish() throws(MediaFileError) {
        guard !finished else { return }
        finished = true
        if framesWritten == 0 {
            // libopusenc 0.2.1 trips an assertion (abort) draining a stream that was never
            // written to; a zero-length write sets the stream up so the drain is valid.
            var silence: Int16 = 0
            let code = ope_encoder_write(encoder.pointer, &silence, 0)
            guard code == OPE_OK else { throw OpusLibraryErrors.encoder(code, "starting an empty stream") }
        }
        let code = ope_encoder_drain(encoder.pointer)
        try encoder.sinkBox.check()
        guard code == OPE_OK else { throw OpusLibraryErrors.encoder(code, "draining") }
        try encoder.sinkBox.sink.flush()
    }
}

/// The sink libopusenc's C callbacks write to, with the first error they hit.
final class OggOpusSinkBox {
    let sink: any ByteSink
    var error: MediaFileError?

    init(sink: any ByteSink) { self.sink = sink }

    /// Throws the first error a callback stored, once.
    func check() throws(MediaFileError) {
        if let error {
            self.error = nil
            throw error
        }
    }
}

/// Owns one libopusenc encoder (and the callback table it points to); destroyed in deinit.
final class OggOpusEncoderHandle {
    let pointer: OpaquePointer
    /// Kept alive by the handle so the callbacks' context outlives the encoder.
    let sinkBox: OggOpusSinkBox
    private let callbacks: UnsafeMutablePointer<OpusEncCallbacks>

    init(sink: any ByteSink, channels: Int) throws(MediaFileError) {
        sinkBox = OggOpusSinkBox(sink: sink)
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: OpusEncCallbacks(
            write: { context, bytes, length in
                let box = Unmanaged<OggOpusSinkBox>.fromOpaque(context!).takeUnretainedValue()
                guard box.error == nil else { return 1 }
                do throws(MediaFileError) {
                    try box.sink.write(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
                    return 0
                } catch {
                    box.error = error
                    return 1
                }
            },
            close: { _ in 0 }  // the sink's owner closes it
        ))
        guard let comments = ope_comments_create() else {
            callbacks.deallocate()
            throw MediaFileError(.io, format: OpusLibraryErrors.format, "libopusenc could not allocate comments")
        }
        // The encoder copies the comments, so they are freed right after.
        defer { ope_comments_destroy(comments) }
        var error: Int32 = 0
        let pointer = ope_encoder_create_callbacks(callbacks, Unmanaged.passUnretained(sinkBox).toOpaque(), comments,
                                                   Int32(conferSampleRate), Int32(channels), 0, &error)
        guard let pointer, error == OPE_OK else {
            if let pointer { ope_encoder_destroy(pointer) }
            callbacks.deallocate()
            throw OpusLibraryErrors.encoder(error, "creating the encoder")
        }
        self.pointer = pointer
    }

    deinit {
        ope_encoder_destroy(pointer)
        callbacks.deallocate()
    }
}
