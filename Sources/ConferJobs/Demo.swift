public import ConferMedia
import ConferCodecs

/// One codec's row in the demo: how big, how fast, how good.
public struct DemoCodecResult: Codable, Sendable {
    /// The codec.
    public var codec: Codec
    /// The compressed file.
    public var file: String
    /// Its size in bytes.
    public var bytes: Int
    /// Average bitrate in kbit/s.
    public var bitrateKbps: Double
    /// Encode speed: frames per second (video) or × real time (audio).
    public var encodeSpeed: Double
    /// Decode speed, in the same unit.
    public var decodeSpeed: Double
    /// Mean PSNR of the decoded video against the source, in dB (video).
    public var psnr: Double?
    /// Mean SSIM of the decoded video against the source (video).
    public var ssim: Double?
    /// Normalised correlation of the decoded audio with the source after aligning the codec delay (audio).
    public var correlation: Double?
    /// Frames (video) or sample frames (audio) in and out, to show nothing was lost.
    public var unitsIn: Int
    /// Units decoded back.
    public var unitsOut: Int
}

/// What the demo did.
public struct DemoReport: Codable, Sendable {
    /// Where the files are.
    public var directory: String
    /// The generated source clip.
    public var sourceVideo: String
    /// The generated source audio.
    public var sourceAudio: String
    /// One row per codec.
    public var results: [DemoCodecResult]
}

/// The main job on built-in inputs: generate a clip and a tone, encode them with every
/// codec, decode them again and measure size, speed and quality.
public enum Demo {
    /// Runs the demo in `directory` (created if missing).
    public static func run(directory: String, seconds: Double = 5, width: Int = 640, height: Int = 360,
                           videoBitrateKbps: Int = 800, status: (String) -> Void = { _ in }) throws -> DemoReport {
        try makeDirectory(directory)
        let video = directory + "/source.y4m"
        let audio = directory + "/source.wav"
        status("generating \(width)x\(height) test card, \(seconds) s")
        _ = try Generator.run(output: video, pattern: .testcard, width: width, height: height, seconds: seconds, index: 3)
        status("generating tone with talk spurts, \(seconds) s")
        _ = try Generator.run(output: audio, seconds: seconds, index: 2)

        var results: [DemoCodecResult] = []
        for codec in [Codec.vp8, .vp9, .h264] {
            status("\(codec): encoding")
            let file = directory + "/encoded." + (codec == .h264 ? "h264" : "\(codec).ivf")
            let encode = try Transcoder.run(input: video, output: file,
                                            options: TranscodeOptions(codec: codec, bitrateKbps: videoBitrateKbps, threads: 1))
            status("\(codec): decoding")
            let decodedPath = directory + "/decoded-\(codec).y4m"
            let decode = try Transcoder.run(input: file, output: decodedPath)
            status("\(codec): comparing")
            let quality = try Comparison.run(reference: video, test: decodedPath, perFrame: false)
            results.append(DemoCodecResult(
                codec: codec, file: file, bytes: encode.outputBytes, bitrateKbps: encode.bitrateKbps ?? 0,
                encodeSpeed: encode.speed, decodeSpeed: decode.speed,
                psnr: quality.summary.meanPSNR.frame, ssim: quality.summary.meanSSIM.frame, correlation: nil,
                unitsIn: encode.unitsRead, unitsOut: decode.unitsWritten))
        }

        status("opus: encoding")
        let opusFile = directory + "/encoded.opus"
        let encode = try Transcoder.run(input: audio, output: opusFile, options: TranscodeOptions(bitrateKbps: 32))
        status("opus: decoding")
        let decodedAudio = directory + "/decoded-opus.wav"
        let decode = try Transcoder.run(input: opusFile, output: decodedAudio)
        let correlation = try audioCorrelation(audio, decodedAudio)
        results.append(DemoCodecResult(
            codec: .opus, file: opusFile, bytes: encode.outputBytes, bitrateKbps: encode.bitrateKbps ?? 0,
            encodeSpeed: encode.speed, decodeSpeed: decode.speed, psnr: nil, ssim: nil, correlation: correlation,
            unitsIn: encode.unitsRead, unitsOut: decode.unitsWritten))
        return DemoReport(directory: directory, sourceVideo: video, sourceAudio: audio, results: results)
    }

    /// Correlation of two mono or stereo files' first channel after finding the best lag (≤ 10 ms).
    static func audioCorrelation(_ a: String, _ b: String) throws -> Double {
        func samples(_ path: String) throws -> [Int16] {
            let reader = try AudioFileReader(path: path)
            var frame = AudioFrame(silenceOf: 4800, channels: reader.channels)
            var out: [Int16] = []
            while try reader.read(into: &frame, frameCount: 4800) {
                for i in stride(from: 0, to: frame.samples.count, by: reader.channels) { out.append(frame.samples[i]) }
            }
            return out
        }
        // One second from the middle is enough to judge, and keeps the lag search cheap;
        // libopusfile removes Opus's pre-skip, so the best lag is near zero.
        let x = try samples(a)
        let y = try samples(b)
        let window = min(x.count, y.count, conferSampleRate)
        let start = max(0, min(x.count, y.count) / 2 - window / 2)
        return AudioAnalysis.bestAlignment(Array(x[start ..< start + window]), Array(y[start ..< start + window]), maxLag: 480).coefficient
    }
}

/// Creates `path` and its parents if they do not exist.
func makeDirectory(_ path: String) throws {
    var built = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        built += "/" + part
        if mkdir(built, 0o755) != 0 && errno != EEXIST {
            throw JobError(.io, "cannot create directory \(built): error \(errno)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
