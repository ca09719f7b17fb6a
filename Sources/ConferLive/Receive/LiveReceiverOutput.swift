package import ConferMedia
import ConferCodecs
import ConferJobs

/// Where received frames go: decoded to Y4M or WAV/Ogg Opus, or stored as received in
/// IVF or Annex-B.
///
/// Behind the jitter buffers, which decode and conceal themselves, it is made with
/// `decodes: false` and takes pictures (``write(picture:)``) and 10 ms blocks of played audio
/// (``write(played:concealed:)``); encoded frames go to IVF and Annex-B as they are. A
/// recording's Opus packets come encoded (``write(_:)``) to a decoding output: lost packets
/// are then concealed so the audio written keeps time with the RTP timestamps.
package final class LiveReceiverOutput {
    private enum Sink {
        /// Pictures, decoded here when a decoder is given; the writer is made when the first picture tells the size.
        case video(AnyVideoDecoder?)
        /// VP8/VP9 frames as received; the writer is made when a keyframe tells the size.
        case ivf
        case annexB(AnnexBWriter)
        /// Audio, decoded here when a decoder is given.
        case audio(AudioFileWriter, OpusDecoderBox?)
    }

    /// Owns an Opus decoder, a non-copyable value that cannot sit in an enum case.
    private final class OpusDecoderBox {
        var decoder: OpusDecoder
        init(_ decoder: consuming OpusDecoder) { self.decoder = decoder }
    }

    /// Longest gap in an audio stream that concealment fills; a longer jump in RTP time is
    /// taken as the sender moving its clock, not as loss, so no hostile timestamp can make
    /// the file grow by more than this per packet.
    static let maxConcealment = TimeDelta.seconds(1)

    let path: String
    private let codec: Codec
    private let frameRate: Double
    private var sink: Sink
    private var bytes: FileByteSink?
    private var y4m: VideoFileWriter?
    private var ivf: IVFWriter?
    private var scaler: (VideoScaler, FramePool)?
    /// The next audio sample expected, in samples from the first packet.
    private var nextSample: Int64?

    private(set) var framesDecoded = 0
    private(set) var framesNotDecoded = 0
    private(set) var framesWritten = 0
    private(set) var samplesWritten = 0
    private(set) var samplesConcealed = 0
    private(set) var width = 0
    private(set) var height = 0
    /// The first error writing a picture handed over from a closure that cannot throw.
    private var deferredError: (any Error)?

    /// Checks that `path`'s extension suits `codec`, without creating the file.
    package static func validate(path: String, codec: Codec) throws {
        switch (fileExtension(path), codec) {
        case ("y4m", .vp8), ("y4m", .vp9), ("y4m", .h264), ("ivf", .vp8), ("ivf", .vp9), ("h264", .h264), ("264", .h264),
             ("wav", .opus), ("opus", .opus), ("ogg", .opus):
            return
        default:
            throw JobError(.invalidOptions, "cannot write received \(codec) to '\(path)': use .y4m (decoded video), .ivf (VP8/VP9 as received), "
                           + ".h264 (H.264 as received), or .wav / .opus (Opus)")
        }
    }

    /// Opens the output for `codec` at `path`; the extension must suit the codec. With
    /// `decodes` false, pictures and audio come decoded.
    init(path: String, codec: Codec, channels: Int, frameRate: Double, threads: Int, decodes: Bool = true) throws {
        self.path = path
        self.codec = codec
        self.frameRate = frameRate
        switch (fileExtension(path), codec) {
        case ("y4m", .vp8), ("y4m", .vp9), ("y4m", .h264):
            sink = .video(decodes ? try AnyVideoDecoder(codec: codec, threads: threads) : nil)
        case ("ivf", .vp8), ("ivf", .vp9):
            sink = .ivf
        case ("h264", .h264), ("264", .h264):
            let file = try FileByteSink(path: path)
            bytes = file
            sink = .annexB(AnnexBWriter(sink: file))
        case ("wav", .opus), ("opus", .opus), ("ogg", .opus):
            guard channels == 1 || channels == 2 else { throw JobError(.invalidOptions, "audio output has 1 or 2 channels, not \(channels)") }
            sink = .audio(try AudioFileWriter(path: path, channels: channels, bitrate: nil),
                          decodes ? OpusDecoderBox(try OpusDecoder(channels: channels)) : nil)
        default:
            throw JobError(.invalidOptions, "cannot write received \(codec) to '\(path)': use .y4m (decoded video), .ivf (VP8/VP9 as received), "
                           + ".h264 (H.264 as received), or .wav / .opus (Opus)")
        }
    }

    /// Decodes or stores one received frame.
    func write(_ frame: EncodedFrame) throws {
        switch sink {
        case .video(let decoder):
            // Without a decoder the pictures come decoded, and an encoded frame has nowhere to go.
            guard let decoder else { return }
            // A frame the decoder rejects is counted; the decoder recovers at the next keyframe.
            guard let picture = try? decoder.decode(frame) else {
                framesNotDecoded += 1
                return
            }
            framesDecoded += 1
            try writePicture(picture)
        case .ivf:
            try store(frame)
        case .annexB(let writer):
            try writer.write(frame)
            framesWritten += 1
        case .audio(let writer, let box):
            guard let box else { return }
            try writeAudio(frame, writer, box)
        }
    }

    /// Whether encoded frames have somewhere to go: stored as they are (IVF, Annex-B) or
    /// decoded here.
    var takesEncodedFrames: Bool {
        switch sink {
        case .ivf, .annexB: true
        case .video(let decoder): decoder != nil
        case .audio(_, let box): box != nil
        }
    }

    /// Writes a decoded picture (Y4M output; others ignore it).
    func write(picture: VideoFrame) throws {
        guard case .video = sink else { return }
        framesDecoded += 1
        try writePicture(picture)
    }

    /// ``write(picture:)`` or ``write(_:)`` for a closure that cannot throw: the first error
    /// is kept for ``throwDeferredError()`` and nothing more is written.
    func writeDeferringErrors(picture: VideoFrame?, encoded: EncodedFrame?) {
        guard deferredError == nil else { return }
        do {
            if let picture { try write(picture: picture) }
            if let encoded { try write(encoded) }
        } catch {
            deferredError = error
        }
    }

    /// Throws the error a deferred write met, if any.
    func throwDeferredError() throws {
        if let deferredError { throw deferredError }
    }

    /// Writes 10 ms of played audio, `concealed` sample frames of it synthesized for loss.
    func write(played frame: AudioFrame, concealed: Int) throws {
        guard case .audio(let writer, _) = sink else { return }
        try writer.write(frame)
        framesWritten += 1
        samplesWritten += frame.frameCount
        samplesConcealed += concealed
    }

    /// Flushes pictures a decoder held back and completes the file.
    func finish() throws -> Int {
        switch sink {
        case .video(let decoder):
            for picture in (try? decoder?.flush()) ?? [] {
                framesDecoded += 1
                try writePicture(picture)
            }
            try y4m?.finish()
            return y4m?.fileBytes ?? 0
        case .ivf:
            try ivf?.finish()
        case .annexB(let writer):
            try writer.finish()
        case .audio(let writer, _):
            try writer.finish()
            return writer.fileBytes
        }
        let written = bytes?.position ?? 0
        try bytes?.close()
        return written
    }

    private func writePicture(_ picture: VideoFrame) throws {
        if y4m == nil {
            width = picture.width
            height = picture.height
            y4m = try VideoFileWriter(path: path, codec: nil,
                                      settings: VideoEncoderSettings(width: width, height: height, frameRate: frameRate))
        }
        guard let y4m else { return }
        if picture.width == width && picture.height == height {
            try y4m.write(picture)
        } else {
            // Y4M has one picture size; a stream that changes size is scaled to the first.
            if scaler == nil { scaler = (VideoScaler(filter: .bilinear), FramePool(width: width, height: height, capacity: 2)) }
            guard let scaler else { return }
            try y4m.write(try scaler.0.scaled(picture, using: scaler.1))
        }
        framesWritten += 1
    }

    private func store(_ frame: EncodedFrame) throws {
        if ivf == nil {
            // IVF's header needs the picture size: wait for a frame that tells it (a keyframe).
            guard frame.width > 0, frame.height > 0, frame.width <= 0xFFFF, frame.height <= 0xFFFF else {
                framesNotDecoded += 1
                return
            }
            width = frame.width
            height = frame.height
            let file = try FileByteSink(path: path)
            bytes = file
            ivf = try IVFWriter(sink: file, header: IVFHeader(codec: codec, width: width, height: height,
                                                              timebaseNumerator: 1, timebaseDenominator: 90_000))
        }
        guard let ivf, frame.data.count <= IVFHeader.maxFrameSize else {
            framesNotDecoded += 1
            return
        }
        try ivf.write(frame)
        framesWritten += 1
    }

    private func writeAudio(_ frame: EncodedFrame, _ writer: AudioFileWriter, _ box: OpusDecoderBox) throws {
        let start = frame.timestamp.ticks(rate: conferSampleRate)
        var expected = nextSample ?? start
        let gap = start - expected
        if gap > 0 && gap <= Self.maxConcealment.microseconds * Int64(conferSampleRate) / 1_000_000 {
            expected = try conceal(samples: gap, from: expected, writer, box)
        } else if gap != 0 {
            expected = start   // a jump in RTP time, or a packet overlapping the last: follow the sender
        }
        let decoded: AudioFrame
        do {
            decoded = try box.decoder.decode(frame)
        } catch {
            // A corrupt packet: count it and conceal its duration so time still adds up.
            framesNotDecoded += 1
            let lost = frame.duration.microseconds * Int64(conferSampleRate) / 1_000_000
            nextSample = try conceal(samples: max(lost, 0), from: expected, writer, box)
            return
        }
        framesDecoded += 1
        try writer.write(decoded)
        framesWritten += 1
        samplesWritten += decoded.frameCount
        nextSample = expected + Int64(decoded.frameCount)
    }

    /// Writes `samples` of concealment (10 ms steps up to 120 ms, the lengths libopus takes,
    /// then silence for a remainder under 10 ms); returns the sample after them.
    private func conceal(samples: Int64, from position: Int64, _ writer: AudioFileWriter, _ box: OpusDecoderBox) throws -> Int64 {
        var left = samples
        let step = Int64(conferSampleRate / 100)
        while left >= step {
            let milliseconds = Int(min(left / step, 12) * 10)
            let frame = try box.decoder.concealLoss(durationMs: milliseconds, timestamp: .zero)
            try writer.write(frame)
            left -= Int64(frame.frameCount)
            samplesWritten += frame.frameCount
            samplesConcealed += frame.frameCount
            if frame.frameCount == 0 { break }
        }
        if left > 0 {
            let silence = AudioFrame(silenceOf: Int(left), channels: box.decoder.channels)
            try writer.write(silence)
            samplesWritten += silence.frameCount
            samplesConcealed += silence.frameCount
        }
        return position + samples
    }
}
