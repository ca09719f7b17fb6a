import ArgumentParser
import Confer
import ConferMedia
import ConferJobs

/// The codec `confer mix` encodes with, or raw pictures.
enum MixCodec: String, ExpressibleByArgument, CaseIterable {
    case vp8, vp9, h264, raw

    /// The encoder's codec; nil for raw.
    var codec: Codec? {
        switch self {
        case .vp8: .vp8
        case .vp9: .vp9
        case .h264: .h264
        case .raw: nil
        }
    }
}

struct MixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mix",
        abstract: "Composite several videos into one, as a meeting host does, and mix their audio.",
        discussion: """
        Each output frame lays out every input's latest picture (inputs at other frame rates are sampled by \
        timestamp; an input that ends keeps its last picture, then shows a placeholder after 1 s) and is \
        encoded once. Input n (from 0) is participant n in a custom JSON layout. With --audio (one file per \
        video input), the audio is mixed as an observer hears it, and the speaking detector highlights the \
        speaker (and picks who is large in the speaker and pip layouts).

        The stream is cut into equal segments, each starting with a keyframe (at most 128 frames apart \
        unless --keyframe-interval says otherwise), as many for every worker, and worker threads, one per \
        core, each compose and encode every n-th segment with a one-thread encoder (--no-segments for one \
        encoder). With one encoder, reading and compositing run on a second thread \
        while this one encodes (--no-pipeline to compare).

        Examples:
          confer mix a.y4m b.y4m c.y4m d.y4m -o grid.ivf --bitrate 1500
          confer mix a.y4m b.y4m --layout speaker --audio a.wav --audio b.wav --audio-out mix.wav -o call.ivf
          confer mix a.y4m b.y4m c.y4m d.y4m --codec raw --discard      # compositing speed only
        """)

    @Argument(help: "The video inputs (.y4m, .ivf, .h264), in slot order.")
    var inputs: [String] = []
    @Option(name: .shortAndLong, help: "The output: .ivf (VP8/VP9), .h264 or .y4m (raw).")
    var output: String?
    @Flag(help: "Write nothing: composite (and encode, unless --codec raw) only, to measure speed.")
    var discard = false
    @Option(help: "grid, speaker, pip, presenter, or a FILE.json layout.")
    var layout = "grid"
    @Option(help: "Canvas size, WIDTHxHEIGHT. (default: 1280x720)", transform: VideoSize.parse)
    var size = VideoSize(width: 1280, height: 720)
    @Option(help: "Output frame rate.")
    var fps: Double = 30
    @Option(help: "vp8, vp9, h264 or raw (default: the output container's natural codec).")
    var codec: MixCodec?
    @Option(help: "Target bitrate in kbit/s.")
    var bitrate: Int?
    @Option(help: "Encoder threads (default: 2 while other work leaves a core free, else 1).")
    var threads: Int?
    @Option(help: "Encoder speed: libvpx cpu-used; for H.264, 8 or more is ultrafast.")
    var speed = 8
    @Option(help: "Most frames between keyframes (0: only the first); 128 is libvpx's, FFmpeg's and GStreamer's default.")
    var keyframeInterval = 128
    @Option(help: "Stop after this many seconds of output.")
    var duration: Double?
    @Option(help: "Seconds after an input's last frame before its slot shows the placeholder.")
    var placeholderTimeout: Double = 1
    @Option(help: "An audio file per video input, in the same order (.wav or .opus); repeat the option.")
    var audio: [String] = []
    @Option(help: "Write the audio mix here (.wav or .opus).")
    var audioOut: String?
    @Flag(inversion: .prefixedNo, help: "Read and composite on a second thread while encoding.")
    var pipeline = true
    @Option(help: "Composed frames that may wait for the encoder.")
    var queueDepth = 3
    @Flag(inversion: .prefixedNo, help: """
        Encode keyframe-to-keyframe segments side by side, a worker per core (when the output is encoded \
        and threads are automatic; with --audio, the audio is mixed first).
        """)
    var segments = true
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one video input") }
        if inputs.count > MixJob.maximumInputs { throw ValidationError("at most \(MixJob.maximumInputs) video inputs") }
        if output == nil && !discard { throw ValidationError("give -o OUTPUT (.ivf, .h264, .y4m) or --discard") }
        if output != nil && discard { throw ValidationError("--discard writes nothing; drop -o") }
        let lowered = layout.lowercased()
        if !MixLayout.names.contains(lowered) && !["active-speaker", "picture-in-picture"].contains(lowered)
            && !lowered.hasSuffix(".json") {
            throw ValidationError("unknown --layout '\(layout)': use grid, speaker, pip, presenter or a FILE.json")
        }
        if let output { try Self.checkContainer(output, codec: codec) }
        try OptionCheck.bitrate(bitrate)
        try OptionCheck.frameRate(fps)
        try OptionCheck.threads(threads)
        if !(1...64).contains(queueDepth) { throw ValidationError("--queue-depth must be 1…64") }
        try OptionCheck.positiveDuration(duration)
        if !(placeholderTimeout > 0 && placeholderTimeout <= 3600) {
            throw ValidationError("--placeholder-timeout must be between 0 and 3600 seconds")
        }
        if !audio.isEmpty && audio.count != inputs.count {
            throw ValidationError("\(audio.count) --audio files for \(inputs.count) video inputs: give one per video input")
        }
        if audioOut != nil && audio.isEmpty { throw ValidationError("--audio-out needs --audio files, one per video input") }
    }

    /// Checks that `codec` fits the container `path` names.
    static func checkContainer(_ path: String, codec: MixCodec?) throws {
        let ext = path.split(separator: "/").last.flatMap { name in name.contains(".") ? name.split(separator: ".").last : nil }
            .map { $0.lowercased() } ?? ""
        switch (ext, codec) {
        case ("y4m", nil), ("y4m", .raw?): break
        case ("y4m", let codec?): throw ValidationError(".y4m is raw video; --codec \(codec.rawValue) needs .ivf or .h264")
        case ("ivf", nil), ("ivf", .vp8?), ("ivf", .vp9?): break
        case ("ivf", let codec?): throw ValidationError(".ivf holds VP8 or VP9; write --codec \(codec.rawValue) to "
                                                        + (codec == .raw ? ".y4m" : ".h264"))
        case ("h264", nil), ("264", nil), ("h264", .h264?), ("264", .h264?): break
        case ("h264", let codec?), ("264", let codec?):
            throw ValidationError(".h264 holds H.264; write --codec \(codec.rawValue) to " + (codec == .raw ? ".y4m" : ".ivf"))
        default: throw ValidationError("cannot write video to '\(path)': use .ivf (VP8/VP9), .h264 or .y4m")
        }
    }

    /// The job's options from the command line (the layout file is read here).
    func options() throws -> MixOptions {
        MixOptions(layout: try MixLayout(argument: layout), width: size.width, height: size.height, frameRate: fps,
                   codec: codec?.codec, bitrateKbps: bitrate, threads: threads, speed: speed,
                   keyframeInterval: keyframeInterval, maxDuration: duration,
                   placeholderTimeout: .seconds(placeholderTimeout), audioInputs: audio, audioOutput: audioOut,
                   pipelined: pipeline, queueDepth: queueDepth, segmented: segments)
    }

    func run() throws {
        let progress = outputOptions.progress("mix")
        let report = try MixJob.run(inputs: inputs, output: output, options: try options()) { progress.update($0, of: $1) }
        progress.finish()
        try outputOptions.emit(report)
    }
}

extension MixReport: CommandReport {
    var humanSummary: [String] {
        var lines = ["\(inputs.count) inputs → \(output ?? "(discarded)"), \(layout) layout"]
        lines.append("  \(framesComposed) frames \(width)x\(height) @ \(fixed(frameRate, 2)) fps, \(outputCodec)"
                     + (framesDropped > 0 ? ", \(framesDropped) dropped by rate control" : "")
                     + (keyframes > 0 ? ", \(keyframes) keyframes" : ""))
        lines.append("  slots: \(compositor.copiedSlots) copied, \(compositor.scaledSlots) resized, "
                     + "\(compositor.placeholderSlots) placeholders")
        let how: String
        if pipeline.segmentWorkers > 0 {
            how = " (\(pipeline.segments) segments of \(pipeline.segmentFrames) frames on \(pipeline.segmentWorkers) workers; waits: workers "
                + "\(fixed(pipeline.producerWaitSeconds, 2)) s, writer \(fixed(pipeline.consumerWaitSeconds, 2)) s)"
        } else if pipeline.pipelined {
            how = " (pipelined; waits: compositing \(fixed(pipeline.producerWaitSeconds, 2)) s, "
                + "encoding \(fixed(pipeline.consumerWaitSeconds, 2)) s)"
        } else {
            how = " (one thread)"
        }
        lines.append("  \(fixed(mediaSeconds, 2)) s of video in \(fixed(wallSeconds, 2)) s: \(fixed(speed, 1)) fps" + how)
        if outputCodec != "i420" && pipeline.segmentWorkers > 0 {
            lines.append("  encoder threads: 1 per worker, a fresh encoder per segment")
        } else if outputCodec != "i420" {
            lines.append("  encoder threads: \(pipeline.encoderThreads)"
                         + (pipeline.droppedToOneThreadAtFrame.map { ", 1 from frame \($0) (other work on the cores)" } ?? ""))
        }
        if output != nil {
            lines.append("  \(formatBytes(outputBytes))" + (bitrateKbps.map { ", \(fixed($0, 1)) kbit/s" } ?? ""))
        }
        if let audio {
            lines.append("  audio: \(audio.inputs.count) inputs mixed, \(fixed(audio.seconds, 2)) s"
                         + (audio.output.map { " → \($0)" } ?? "")
                         + ", speaker changed \(audio.speakerChanges) times; speaking s: "
                         + audio.speakingSeconds.map { fixed($0, 1) }.joined(separator: " "))
        }
        return lines
    }
}
