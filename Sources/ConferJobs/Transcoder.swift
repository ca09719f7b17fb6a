public import ConferMedia
import ConferCodecs

/// What `confer transcode` may change on the way through.
public struct TranscodeOptions: Sendable {
    /// The codec to encode with; nil picks the output file's natural codec.
    public var codec: Codec?
    /// Target bitrate in kbit/s; nil uses a default for the codec and picture size.
    public var bitrateKbps: Int?
    /// Output picture size; nil keeps the input's.
    public var size: (width: Int, height: Int)?
    /// Output frame rate; nil keeps the input's (frames are dropped or repeated to convert).
    public var frameRate: Double?
    /// Encoder and decoder threads.
    public var threads: Int
    /// libvpx cpu-used / x264 preset speed.
    public var speed: Int
    /// Frames between keyframes (0: only the first).
    public var keyframeInterval: Int
    /// Stop after this many seconds of media.
    public var maxDuration: Double?

    /// Defaults: natural codec, automatic bitrate, same size and rate, 1 thread, speed 8.
    public init(codec: Codec? = nil, bitrateKbps: Int? = nil, size: (width: Int, height: Int)? = nil,
                frameRate: Double? = nil, threads: Int = 1, speed: Int = 8, keyframeInterval: Int = 0,
                maxDuration: Double? = nil) {
        self.codec = codec
        self.bitrateKbps = bitrateKbps
        self.size = size
        self.frameRate = frameRate
        self.threads = threads
        self.speed = speed
        self.keyframeInterval = keyframeInterval
        self.maxDuration = maxDuration
    }

    /// A bitrate that suits real-time video of `width` × `height` (about 0.1 bit per pixel per frame at 30 fps).
    public static func defaultVideoBitrateKbps(width: Int, height: Int) -> Int {
        max(150, width * height * 30 / 10 / 1000 / 100 * 100)
    }
}

/// What a transcode did.
public struct TranscodeReport: Codable, Sendable {
    /// The input path.
    public var input: String
    /// The output path.
    public var output: String
    /// "video" or "audio".
    public var kind: String
    /// The input's format and codec, as probed.
    public var inputFormat: String
    /// The output's codec ("i420" / "pcm16" for raw).
    public var outputCodec: String
    /// Pictures or audio sample frames read (decoded) from the input.
    public var unitsRead: Int
    /// Pictures encoded and written, or audio sample frames written.
    public var unitsWritten: Int
    /// Pictures the encoder's rate control dropped.
    public var framesDropped: Int
    /// Keyframes written.
    public var keyframes: Int
    /// Output picture width (video).
    public var width: Int?
    /// Output picture height (video).
    public var height: Int?
    /// Output frame rate (video).
    public var frameRate: Double?
    /// Media seconds written.
    public var mediaSeconds: Double
    /// Bytes in the output file.
    public var outputBytes: Int
    /// Average bitrate of the compressed output in kbit/s (nil for raw output).
    public var bitrateKbps: Double?
    /// Wall-clock seconds the job took.
    public var wallSeconds: Double
    /// Frames per wall second (video) or media seconds per wall second (audio).
    public var speed: Double
}

/// Converts one media file into another: decode when the input is compressed, convert
/// size and frame rate, encode when the output is compressed.
public enum Transcoder {
    /// Runs the job; `progress(done, total)` is called after every unit of work.
    public static func run(input: String, output: String, options: TranscodeOptions = TranscodeOptions(),
                           progress: (Int, Int?) -> Void = { _, _ in }) throws -> TranscodeReport {
        let info = try MediaFileInfo.probe(path: input)
        switch info.format {
        case .y4m, .ivf, .h264: return try video(input: input, output: output, options: options, progress: progress)
        case .wav, .oggOpus: return try audio(input: input, output: output, options: options, progress: progress)
        }
    }

    static func video(input: String, output: String, options: TranscodeOptions,
                      progress: (Int, Int?) -> Void) throws -> TranscodeReport {
        let start = ContinuousClock.now
        let reader = try VideoFileReader(path: input, decoderThreads: options.threads)
        let width = options.size?.width ?? reader.width
        let height = options.size?.height ?? reader.height
        let inRate = reader.frameRate
        let outRate = options.frameRate ?? inRate
        guard outRate > 0, inRate > 0 else { throw JobError(.invalidInput, "frame rate must be positive") }
        let bitrate = (options.bitrateKbps ?? TranscodeOptions.defaultVideoBitrateKbps(width: width, height: height)) * 1000
        let settings = VideoEncoderSettings(width: width, height: height, frameRate: outRate, bitrate: bitrate,
                                            threads: options.threads, speed: options.speed, errorResilient: true,
                                            keyframeInterval: options.keyframeInterval)
        let writer = try VideoFileWriter(path: output, codec: options.codec, settings: settings)
        let scaler = VideoScaler(filter: .box)
        let pool = FramePool(width: width, height: height, capacity: 4)
        let needsScaling = width != reader.width || height != reader.height
        let total = reader.frameCount.map { Int((Double($0) * outRate / inRate).rounded(.up)) }
        let maxFrames = options.maxDuration.map { Int(($0 * outRate).rounded()) } ?? Int.max

        var read = 0
        var written = 0
        // Output frame k shows the input frame on screen at k / outRate: input frame i covers
        // [i / inRate, (i + 1) / inRate), so frames are dropped or repeated as the rates differ.
        reading: while written < maxFrames, let decoded = try reader.next() {
            read += 1
            while written < maxFrames && Double(written) * inRate < Double(read) * outRate {
                var frame = needsScaling ? try scaler.scaled(decoded, using: pool) : decoded
                frame.timestamp = Timestamp.seconds(Double(written) / outRate)
                try writer.write(frame)
                written += 1
                progress(written, total)
            }
            if written >= maxFrames { break reading }
        }
        try writer.finish()
        let wall = (ContinuousClock.now - start).seconds
        let media = Double(written) / outRate
        return TranscodeReport(
            input: input, output: output, kind: "video",
            inputFormat: reader.info.format.rawValue + "/" + reader.info.codec,
            outputCodec: writer.codec?.rawValue ?? "i420",
            unitsRead: read, unitsWritten: writer.framesOut, framesDropped: writer.framesDropped,
            keyframes: writer.keyframes, width: width, height: height, frameRate: outRate,
            mediaSeconds: media, outputBytes: writer.fileBytes,
            bitrateKbps: writer.codec == nil || media == 0 ? nil : Double(writer.payloadBytes) * 8 / media / 1000,
            wallSeconds: wall, speed: wall > 0 ? Double(written) / wall : 0)
    }

    static func audio(input: String, output: String, options: TranscodeOptions,
                      progress: (Int, Int?) -> Void) throws -> TranscodeReport {
        if let codec = options.codec, codec != .opus {
            throw JobError(.invalidOptions, "\(input) is audio; --codec \(codec) is a video codec (use opus, or write .wav)")
        }
        let start = ContinuousClock.now
        let reader = try AudioFileReader(path: input)
        let bitrate = (options.bitrateKbps ?? (reader.channels == 2 ? 64 : 32)) * 1000
        let writer = try AudioFileWriter(path: output, channels: reader.channels, bitrate: bitrate)
        let block = 960
        var frame = AudioFrame(silenceOf: block, channels: reader.channels)
        let maxFrames = options.maxDuration.map { Int($0 * Double(conferSampleRate)) } ?? Int.max
        var read = 0
        while read < maxFrames, try reader.read(into: &frame, frameCount: min(block, maxFrames - read)) {
            read += frame.frameCount
            try writer.write(frame)
            progress(read, reader.frameCount)
        }
        try writer.finish()
        let wall = (ContinuousClock.now - start).seconds
        let media = Double(writer.framesWritten) / Double(conferSampleRate)
        return TranscodeReport(
            input: input, output: output, kind: "audio",
            inputFormat: reader.info.format.rawValue + "/" + reader.info.codec,
            outputCodec: writer.isCompressed ? "opus" : "pcm16",
            unitsRead: read, unitsWritten: writer.framesWritten, framesDropped: 0, keyframes: 0,
            width: nil, height: nil, frameRate: nil, mediaSeconds: media, outputBytes: writer.fileBytes,
            bitrateKbps: writer.isCompressed && media > 0 ? Double(writer.fileBytes) * 8 / media / 1000 : nil,
            wallSeconds: wall, speed: wall > 0 ? media / wall : 0)
    }
}
