import ConferMedia
import ConferCodecs
import ConferJobs

/// What `confer send` reads from a file, one item at a time, for the ``SendPipeline`` to
/// send: pictures to encode (Y4M, or any video not already in the codec asked for, decoded
/// first), encoded frames to send as they are (IVF or Annex-B already in that codec), or
/// 20 ms blocks of audio to encode (WAV, Ogg Opus). Timestamps are media time from the
/// start of the stream and keep increasing across passes when the file is looped.
final class LiveSenderSource {
    /// What the file gives.
    enum Kind {
        /// Pictures: ``nextPicture()``.
        case pictures
        /// Encoded frames: ``nextEncoded(into:)``.
        case encoded
        /// Audio: ``nextAudio(into:)``.
        case audio
    }

    private enum Reader {
        case pictures(VideoFileReader)
        case ivf(IVFReader)
        case annexB(AnnexBReader)
        case audio(AudioFileReader)
    }

    let path: String
    let codec: Codec
    let kind: Kind
    /// Whether frames go out as the file holds them, without encoding.
    var isPassThrough: Bool { kind == .encoded }
    /// Audio channels (1 for video).
    let channels: Int
    /// Picture size, when the file tells it (0 for Annex-B and audio).
    let width: Int
    let height: Int
    /// Frames per second of video (for audio, blocks per second).
    let frameRate: Double
    /// The time one frame or audio block lasts.
    let frameInterval: TimeDelta
    /// Sample frames in one audio block: 20 ms.
    static let audioBlockFrames = 960

    private var reader: Reader
    private let loops: Bool
    private let threads: Int
    /// Media time at which the current pass over the file started.
    private var passStart = TimeDelta.zero
    /// Items produced in the current pass.
    private var passItems = 0
    /// Pictures produced in the passes before the current one.
    private var picturesBefore = 0
    private var end = Timestamp.zero
    private var pictureID: UInt16 = 0
    private var chunk: AudioFrame
    private var samplesThisPass = 0

    /// Opens `path` to send as `codec`.
    init(path: String, codec: Codec, threads: Int, loops: Bool) throws {
        self.path = path
        self.codec = codec
        self.loops = loops
        self.threads = threads
        let info = try MediaFileInfo.probe(path: path)
        switch info.format {
        case .wav, .oggOpus:
            guard codec == .opus else { throw JobError(.invalidOptions, "\(path) is audio; send it with --codec opus") }
            let audio = try AudioFileReader(path: path)
            reader = .audio(audio)
            kind = .audio
            channels = audio.channels
            width = 0
            height = 0
            frameRate = 50
            frameInterval = .milliseconds(20)
            chunk = AudioFrame(silenceOf: Self.audioBlockFrames, channels: audio.channels)
        case .y4m, .ivf, .h264:
            guard codec.isVideo else { throw JobError(.invalidOptions, "\(path) is video; send it with --codec vp8, vp9 or h264") }
            channels = 1
            chunk = AudioFrame(silenceOf: 0, channels: 1)
            if info.format == .ivf, info.codec == codec.rawValue {
                reader = .ivf(try IVFReader(source: try FileByteSource(path: path)))
                kind = .encoded
            } else if info.format == .h264, codec == .h264 {
                reader = .annexB(try AnnexBReader(source: try FileByteSource(path: path)))
                kind = .encoded
            } else {
                reader = .pictures(try VideoFileReader(path: path, decoderThreads: threads))
                kind = .pictures
            }
            width = info.width ?? 0
            height = info.height ?? 0
            let rate = info.frameRate ?? 30
            frameRate = rate > 0 ? rate : 30
            frameInterval = .seconds(1 / frameRate)
        }
    }

    /// The next picture, stamped with its media time; nil at the end (after the last pass, when looping).
    func nextPicture() throws -> VideoFrame? {
        guard case .pictures(let video) = reader else { return nil }
        if var picture = try video.next() {
            // From the picture count over the whole stream, so loops accumulate no rounding.
            picture.timestamp = .seconds(Double(picturesBefore + passItems) / frameRate)
            passItems += 1
            end = picture.timestamp + frameInterval
            return picture
        }
        guard try startNextPass() else { return nil }
        return try nextPicture()
    }

    /// Replaces `frame` with the next encoded frame; false at the end.
    func nextEncoded(into frame: inout EncodedFrame) throws -> Bool {
        let read: Bool
        switch reader {
        case .ivf(let ivf):
            read = try ivf.read(into: &frame)
            if read { numberPictures(&frame) }
        case .annexB(let annexB):
            read = try annexB.read(into: &frame)
        case .pictures, .audio:
            return false
        }
        if read {
            frame.timestamp = frame.timestamp + passStart
            passItems += 1
            end = frame.timestamp + frameInterval
            return true
        }
        guard try startNextPass() else { return false }
        return try nextEncoded(into: &frame)
    }

    /// Fills `frame` with the next 20 ms of audio (the file's last block padded with
    /// silence), stamped with its media time; false at the end.
    func nextAudio(into frame: inout AudioFrame) throws -> Bool {
        guard case .audio(let audio) = reader else { return false }
        let samples = Self.audioBlockFrames
        if frame.channels != channels { frame = AudioFrame(silenceOf: samples, channels: channels) }
        // Readers may return short blocks (a resampler's edge); gather a whole block.
        frame.samples.removeAll(keepingCapacity: true)
        while frame.samples.count < samples * channels,
              try audio.read(into: &chunk, frameCount: samples - frame.samples.count / channels) {
            frame.samples.append(contentsOf: chunk.samples)
        }
        guard !frame.samples.isEmpty else {
            guard try startNextPass() else { return false }
            return try nextAudio(into: &frame)
        }
        frame.samples.append(contentsOf: repeatElement(0, count: samples * channels - frame.samples.count))
        frame.timestamp = .zero + passStart + TimeDelta(microseconds: Int64(samplesThisPass) * 1_000_000 / Int64(conferSampleRate))
        samplesThisPass += samples
        passItems += 1
        end = frame.timestamp + frameInterval
        return true
    }

    /// IVF carries no picture ids; the RTP descriptor wants them increasing by one per
    /// frame. Every frame is a base-layer frame, so TL0PICIDX counts with them (as the
    /// encoder numbers them), or a receiver would take each for a lost base layer.
    private func numberPictures(_ frame: inout EncodedFrame) {
        switch codec {
        case .vp8:
            frame.vp8 = VP8FrameInfo(pictureID: pictureID)
        case .vp9:
            frame.vp9 = VP9FrameInfo(pictureID: pictureID, interPicturePredicted: !frame.isKeyframe,
                                     tl0PictureIndex: UInt8(truncatingIfNeeded: pictureID))
        case .h264, .opus:
            break
        }
        pictureID = (pictureID + 1) & 0x7FFF
    }

    /// Starts the next pass over the file when looping (and the last pass gave something),
    /// continuing the timeline where the last pass ended; false when there is none.
    private func startNextPass() throws -> Bool {
        guard loops, passItems > 0 else { return false }
        passStart = end - .zero
        if case .pictures = reader { picturesBefore += passItems }
        passItems = 0
        samplesThisPass = 0
        switch reader {
        case .pictures:
            reader = .pictures(try VideoFileReader(path: path, decoderThreads: threads))
        case .ivf:
            reader = .ivf(try IVFReader(source: try FileByteSource(path: path)))
        case .annexB:
            reader = .annexB(try AnnexBReader(source: try FileByteSource(path: path)))
        case .audio:
            reader = .audio(try AudioFileReader(path: path))
        }
        return true
    }
}
