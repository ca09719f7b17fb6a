import Foundation
import Testing
@testable import ConferJobs
import ConferMedia

/// Files Confer writes decode with FFmpeg; files FFmpeg writes decode with Confer.
@Suite(.enabled(if: hasFFmpeg, "needs ffmpeg and ffprobe (Scripts/install-deps installs them)"))
struct FFmpegInteropTests {
    @Test(arguments: [(Codec.vp8, "ivf"), (.vp9, "ivf"), (.h264, "h264")])
    func ffmpegDecodesWhatConferEncodes(codec: Codec, ext: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 320, height: 240, seconds: 1, index: 7)
        let encoded = dir + "/clip.\(ext)"
        _ = try Transcoder.run(input: source, output: encoded, options: TranscodeOptions(codec: codec, bitrateKbps: 500))
        #expect(try ffprobeCount(encoded) == 30)
        // FFmpeg's decode matches the source as well as Confer's own does.
        let viaFFmpeg = dir + "/ffmpeg.y4m"
        let result = try runTool(["ffmpeg", "-v", "error", "-y", "-i", encoded, "-pix_fmt", "yuv420p", viaFFmpeg])
        #expect(result.status == 0, "\(result.errors)")
        let quality = try Comparison.run(reference: source, test: viaFFmpeg, perFrame: false)
        #expect(quality.frames == 30)
        #expect(quality.testFrames == 30)
        #expect(quality.summary.meanPSNR.y >= 35)
    }

    @Test func ffmpegDecodesConferOpus() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/tone.wav"
        _ = try Generator.run(output: source, seconds: 1, index: 1)
        let encoded = dir + "/tone.opus"
        _ = try Transcoder.run(input: source, output: encoded)
        let decoded = dir + "/ffmpeg.wav"
        let result = try runTool(["ffmpeg", "-v", "error", "-y", "-i", encoded, "-ar", "48000", decoded])
        #expect(result.status == 0, "\(result.errors)")
        let reader = try AudioFileReader(path: decoded)
        #expect(reader.frameCount == 48_000)
        // The right length is not enough (a second of silence has it): FFmpeg's decode must
        // be the tone that went in, as GStreamer's is in GStreamerInteropTests.
        #expect(try Demo.audioCorrelation(source, decoded) > 0.9)
    }

    @Test(arguments: [
        ("vp8", "ivf", ["-c:v", "libvpx", "-b:v", "500k"]),
        ("vp9", "ivf", ["-c:v", "libvpx-vp9", "-b:v", "500k", "-deadline", "realtime", "-cpu-used", "8"]),
        ("h264", "h264", ["-c:v", "libx264", "-preset", "ultrafast", "-bsf:v", "h264_mp4toannexb", "-f", "h264"]),
        ("h264-high", "h264", ["-c:v", "libx264", "-profile:v", "high", "-bf", "2", "-bsf:v", "h264_mp4toannexb", "-f", "h264"]),
    ])
    func conferDecodesWhatFFmpegEncodes(name: String, ext: String, codecArguments: [String]) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let raw = dir + "/raw.y4m"
        var result = try runTool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                                  "-pix_fmt", "yuv420p", raw])
        #expect(result.status == 0, "\(result.errors)")
        let encoded = dir + "/\(name).\(ext)"
        result = try runTool(["ffmpeg", "-v", "error", "-y", "-i", raw] + codecArguments + [encoded])
        #expect(result.status == 0, "\(result.errors)")
        let decoded = dir + "/decoded.y4m"
        let report = try Transcoder.run(input: encoded, output: decoded)
        #expect(report.unitsWritten == 30)
        let quality = try Comparison.run(reference: raw, test: decoded, perFrame: false)
        #expect(quality.frames == 30)
        #expect(quality.summary.meanPSNR.y >= 30)
    }

    @Test func conferDecodesFFmpegOpusAndWAV() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let opus = dir + "/ff.opus"
        var result = try runTool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                  "-c:a", "libopus", "-b:a", "32k", opus])
        #expect(result.status == 0, "\(result.errors)")
        let fromOpus = try Transcoder.run(input: opus, output: dir + "/a.wav")
        #expect(fromOpus.unitsWritten == 48_000)
        let wav = dir + "/ff.wav"
        result = try runTool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1",
                              "-ac", "2", wav])
        #expect(result.status == 0, "\(result.errors)")
        // 44.1 kHz in, resampled to 48 kHz: one second stays one second (within a resampler block).
        let fromWAV = try Transcoder.run(input: wav, output: dir + "/b.opus")
        #expect(abs(fromWAV.unitsRead - 48_000) <= 48)
        #expect(try ffprobeCount(dir + "/b.opus", entry: "nb_read_frames") >= 49)
    }
}
