import ArgumentParser
import Confer
import ConferMedia
import ConferCodecs
import ConferJobs

struct TranscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcode",
        abstract: "Encode or decode a media file.",
        discussion: """
        .y4m or .wav in, .ivf (VP8/VP9), .h264 (H.264 Annex-B) or .opus (Ogg Opus) out; or the other way:
        .ivf, .h264 or .opus in, .y4m or .wav out. Compressed to compressed works too (decode, then encode).
        Examples:
          confer transcode clip.y4m -o clip.ivf --codec vp9 --bitrate 1200
          confer transcode clip.h264 -o clip.y4m
          confer transcode voice.wav -o voice.opus --bitrate 24
        """)

    @Argument(help: "The input file (.y4m, .wav, .ivf, .h264, .opus).")
    var input: String
    @Option(name: .shortAndLong, help: "The output file; its extension chooses the container.")
    var output: String
    @Option(help: "Codec: vp8, vp9, h264 or opus (default: the output container's natural codec).")
    var codec: Codec?
    @Option(help: "Target bitrate in kbit/s.")
    var bitrate: Int?
    @Option(help: "Output picture size, WIDTHxHEIGHT (video only).", transform: VideoSize.parse)
    var size: VideoSize?
    @Option(help: "Output frame rate (video only).")
    var fps: Double?
    @Option(help: "Encoder/decoder threads (default: the cores no other process is running on now).")
    var threads: Int?
    @Option(help: "Encoder speed: libvpx cpu-used (VP8 0…16, VP9 0…9); for H.264, 8 or more is ultrafast.")
    var speed = 8
    @Option(help: "Frames between keyframes (0: only the first, and on request).")
    var keyframeInterval = 0
    @Option(help: "Stop after this many seconds of media.")
    var duration: Double?
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        try OptionCheck.bitrate(bitrate)
        try OptionCheck.frameRate(fps)
        try OptionCheck.threads(threads)
    }

    func run() throws {
        let progress = outputOptions.progress("transcode")
        let options = TranscodeOptions(codec: codec, bitrateKbps: bitrate, size: size.map { ($0.width, $0.height) },
                                       frameRate: fps, threads: threads ?? Processors.free(), speed: speed,
                                       keyframeInterval: keyframeInterval, maxDuration: duration)
        let report = try Transcoder.run(input: input, output: output, options: options) { done, total in
            progress.update(done, of: total)
        }
        progress.finish()
        try outputOptions.emit(report)
    }
}
