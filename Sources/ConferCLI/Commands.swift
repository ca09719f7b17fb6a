public import ArgumentParser
import Confer
import ConferMedia
import ConferCodecs
import ConferJobs

extension Codec: ExpressibleByArgument {}
extension VideoPattern: ExpressibleByArgument {}

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The main job on built-in inputs: generate a clip and a tone, encode with every codec, decode, measure.")

    @Option(help: "Directory for the generated and encoded files.")
    var directory = "/tmp/confer-demo"
    @Option(help: "Seconds of media to generate.")
    var duration: Double = 5
    @Option(help: "Picture size.")
    var size = VideoSize(width: 640, height: 360)
    @Option(help: "Video bitrate in kbit/s.")
    var bitrate = 800
    @OptionGroup var output: OutputOptions

    func run() throws {
        let quiet = output.quiet
        let report = try Demo.run(directory: directory, seconds: duration, width: size.width, height: size.height,
                                  videoBitrateKbps: bitrate) { status in
            if !quiet { printError("demo: \(status)") }
        }
        try output.emit(report)
    }
}

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
    @Option(help: "Output picture size, WIDTHxHEIGHT (video only).")
    var size: VideoSize?
    @Option(help: "Output frame rate (video only).")
    var fps: Double?
    @Option(help: "Encoder/decoder threads.")
    var threads = 1
    @Option(help: "Encoder speed: libvpx cpu-used (VP8 0…16, VP9 0…9); for H.264, 8 or more is ultrafast.")
    var speed = 8
    @Option(help: "Frames between keyframes (0: only the first, and on request).")
    var keyframeInterval = 0
    @Option(help: "Stop after this many seconds of media.")
    var duration: Double?
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if let bitrate, !(1...100_000).contains(bitrate) { throw ValidationError("--bitrate is in kbit/s, 1…100000") }
        if let fps, !(fps > 0 && fps <= 240) { throw ValidationError("--fps must be between 0 and 240") }
        if !(1...16).contains(threads) { throw ValidationError("--threads must be 1…16") }
    }

    func run() throws {
        let progress = outputOptions.progress("transcode")
        let options = TranscodeOptions(codec: codec, bitrateKbps: bitrate, size: size.map { ($0.width, $0.height) },
                                       frameRate: fps, threads: threads, speed: speed,
                                       keyframeInterval: keyframeInterval, maxDuration: duration)
        let report = try Transcoder.run(input: input, output: output, options: options) { done, total in
            progress.update(done, of: total)
        }
        progress.finish()
        try outputOptions.emit(report)
    }
}

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write synthetic media: a test pattern (.y4m) or a tone with talk spurts (.wav, .opus).")

    @Option(name: .shortAndLong, help: "The file to write (.y4m, .wav or .opus).")
    var output: String
    @Option(help: "Video pattern: testcard (colour, moving box, frame counter) or noise (hard to encode).")
    var pattern: VideoPattern = .testcard
    @Option(help: "Picture size.")
    var size = VideoSize(width: 640, height: 360)
    @Option(help: "Frames per second.")
    var fps: Double = 30
    @Option(help: "Seconds to generate.")
    var duration: Double = 5
    @Option(help: "Source index: picks the test card's colour or the tone's pitch, so sources can be told apart.")
    var index = 0
    @Option(help: "Audio channels (1 or 2).")
    var channels = 1
    @Option(help: "Random seed (the same seed writes the same file).")
    var seed: UInt64 = 1
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if !(duration > 0 && duration <= 3600) { throw ValidationError("--duration must be between 0 and 3600 seconds") }
        if !(fps > 0 && fps <= 240) { throw ValidationError("--fps must be between 0 and 240") }
        if channels != 1 && channels != 2 { throw ValidationError("--channels must be 1 or 2") }
    }

    func run() throws {
        let progress = outputOptions.progress("generate")
        let report = try Generator.run(output: output, pattern: pattern, width: size.width, height: size.height,
                                       frameRate: fps, seconds: duration, index: index, channels: channels, seed: seed) {
            progress.update($0, of: $1)
        }
        progress.finish()
        try outputOptions.emit(report)
    }
}

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "PSNR and SSIM of a video against its reference (per frame with --json).")

    @Argument(help: "The reference video (.y4m, or a compressed file, which is decoded).")
    var reference: String
    @Argument(help: "The video to judge.")
    var test: String
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let progress = outputOptions.progress("compare")
        let report = try Comparison.run(reference: reference, test: test, perFrame: outputOptions.json) {
            progress.update($0, of: $1)
        }
        progress.finish()
        try outputOptions.emit(report)
    }
}

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "probe", abstract: "Show what is in a media file.")

    @Argument(help: "The file to look at.")
    var file: String
    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        try outputOptions.emit(ProbeReport(file: file, info: try MediaFileInfo.probe(path: file)))
    }
}

/// Writes a line to stderr.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

import Foundation
