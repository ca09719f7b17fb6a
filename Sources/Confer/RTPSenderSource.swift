import ConferMedia
import ConferCodecs

/// The encoded frames `confer send` sends, read from a file: raw video and WAV encoded
/// here, IVF and Annex-B of the codec asked for passed through as they are, anything else
/// decoded and encoded again. Timestamps are media time from the start of the stream and
/// keep increasing across passes when the file is looped.
final class RTPSenderSource {
    private enum Reader {
        case encode(VideoFileReader, AnyVideoEncoder)
        case ivf(IVFReader)
        case annexB(AnnexBReader)
        case audio(AudioFileReader, OpusEncoderBox)
    }

    /// Owns an Opus encoder, which is a non-copyable value and so cannot sit in an enum case.
    private final class OpusEncoderBox {
        var encoder: OpusEncoder
        init(_ encoder: consuming OpusEncoder) { self.encoder = encoder }
    }

    let path: String
    let codec: Codec
    /// Whether frames go out as the file holds them, without encoding.
    let isPassThrough: Bool
    /// Audio channels (1 for video).
    let channels: Int
    /// The time one frame lasts: the video frame interval, or one Opus packet.
    let frameInterval: TimeDelta
    private var reader: Reader
    private let loops: Bool
    /// Media time at which the current pass over the file started.
    private var passStart = TimeDelta.zero
    /// Frames produced in the current pass.
    private var passFrames = 0
    /// Frames produced in the passes before the current one.
    private var framesBefore = 0
    /// Frames per second of video (for audio, Opus packets per second).
    private let frameRate: Double
    private var end = Timestamp.zero
    private var pictureID: UInt16 = 0
    private var pcm: AudioFrame
    private var chunk: AudioFrame
    private var samplesThisPass = 0

    /// Opens `path` to send as `codec`.
    init(path: String, codec: Codec, bitrateKbps: Int?, threads: Int, keyframeIntervalSeconds: Double, loops: Bool) throws {
        self.path = path
        self.codec = codec
        self.loops = loops
        let info = try MediaFileInfo.probe(path: path)
        switch info.format {
        case .wav, .oggOpus:
            guard codec == .opus else { throw JobError("\(path) is audio; send it with --codec opus") }
            let reader = try AudioFileReader(path: path)
            channels = reader.channels
            let settings = AudioEncoderSettings(channels: reader.channels, bitrate: (bitrateKbps ?? (reader.channels == 2 ? 64 : 32)) * 1000,
                                                frameDurationMs: 20)
            self.reader = .audio(reader, OpusEncoderBox(try OpusEncoder(settings: settings)))
            frameInterval = .milliseconds(20)
            frameRate = 50
            isPassThrough = false
            pcm = AudioFrame(silenceOf: settings.samplesPerFrame, channels: reader.channels)
            chunk = pcm
        case .y4m, .ivf, .h264:
            guard codec.isVideo else { throw JobError("\(path) is video; send it with --codec vp8, vp9 or h264") }
            channels = 1
            pcm = AudioFrame(silenceOf: 0, channels: 1)
            chunk = pcm
            if info.format == .ivf, info.codec == codec.rawValue {
                reader = .ivf(try IVFReader(source: try FileByteSource(path: path)))
                isPassThrough = true
            } else if info.format == .h264, codec == .h264 {
                reader = .annexB(try AnnexBReader(source: try FileByteSource(path: path)))
                isPassThrough = true
            } else {
                let video = try VideoFileReader(path: path, decoderThreads: threads)
                let rate = video.frameRate
                let settings = VideoEncoderSettings(
                    width: video.width, height: video.height, frameRate: rate,
                    bitrate: (bitrateKbps ?? TranscodeOptions.defaultVideoBitrateKbps(width: video.width, height: video.height)) * 1000,
                    threads: threads, speed: 8, errorResilient: true,
                    keyframeInterval: max(0, Int((keyframeIntervalSeconds * rate).rounded())))
                // Every picture is encoded, so frames sent match frames read.
                reader = .encode(video, try AnyVideoEncoder(codec: codec, settings: settings, allowsFrameDropping: false))
                isPassThrough = false
            }
            let rate = info.frameRate ?? 30
            frameRate = rate > 0 ? rate : 30
            frameInterval = .seconds(1 / frameRate)
        }
    }

    /// Replaces `frame` with the next frame; false at the end (after the last pass, when looping).
    func next(into frame: inout EncodedFrame) throws -> Bool {
        if try read(into: &frame) { return true }
        guard loops, passFrames > 0 else { return false }
        try reopen()
        return try read(into: &frame)
    }

    private func read(into frame: inout EncodedFrame) throws -> Bool {
        switch reader {
        case .encode(let video, let encoder):
            while let picture = try video.next() {
                var picture = picture
                // From the frame count over the whole stream, so loops accumulate no rounding.
                picture.timestamp = .seconds(Double(framesBefore + passFrames) / frameRate)
                passFrames += 1
                if try encoder.encode(picture, into: &frame) { return finish(&frame) }
            }
            return false
        case .ivf(let ivf):
            guard try ivf.read(into: &frame) else { return false }
            frame.timestamp = frame.timestamp + passStart
            passFrames += 1
            numberPictures(&frame)
            return finish(&frame)
        case .annexB(let annexB):
            guard try annexB.read(into: &frame) else { return false }
            frame.timestamp = frame.timestamp + passStart
            passFrames += 1
            return finish(&frame)
        case .audio(let audio, let box):
            let samples = box.encoder.settings.samplesPerFrame
            // Readers may return short blocks (a resampler's edge); gather a whole Opus frame.
            pcm.samples.removeAll(keepingCapacity: true)
            while pcm.samples.count < samples * channels,
                  try audio.read(into: &chunk, frameCount: samples - pcm.samples.count / channels) {
                pcm.samples.append(contentsOf: chunk.samples)
            }
            guard !pcm.samples.isEmpty else { return false }
            // The file's last block is padded with silence to a whole frame.
            pcm.samples.append(contentsOf: repeatElement(0, count: samples * channels - pcm.samples.count))
            pcm.timestamp = .zero + passStart + TimeDelta(microseconds: Int64(samplesThisPass) * 1_000_000 / Int64(conferSampleRate))
            samplesThisPass += samples
            passFrames += 1
            try box.encoder.encode(pcm, into: &frame)
            return finish(&frame)
        }
    }

    private func finish(_ frame: inout EncodedFrame) -> Bool {
        end = frame.timestamp + frameInterval
        return true
    }

    /// IVF carries no picture ids; the RTP descriptor wants them increasing by one per frame.
    private func numberPictures(_ frame: inout EncodedFrame) {
        switch codec {
        case .vp8:
            frame.vp8 = VP8FrameInfo(pictureID: pictureID)
        case .vp9:
            frame.vp9 = VP9FrameInfo(pictureID: pictureID, interPicturePredicted: !frame.isKeyframe)
        case .h264, .opus:
            break
        }
        pictureID = (pictureID + 1) & 0x7FFF
    }

    /// Starts the next pass over the file, continuing the timeline where the last pass ended.
    private func reopen() throws {
        passStart = end - .zero
        framesBefore += passFrames
        passFrames = 0
        samplesThisPass = 0
        switch reader {
        case .encode(_, let encoder):
            reader = .encode(try VideoFileReader(path: path), encoder)
        case .ivf:
            reader = .ivf(try IVFReader(source: try FileByteSource(path: path)))
        case .annexB:
            reader = .annexB(try AnnexBReader(source: try FileByteSource(path: path)))
        case .audio(_, let box):
            reader = .audio(try AudioFileReader(path: path), box)
        }
    }
}
