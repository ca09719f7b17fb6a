import Foundation
import Testing
@testable import ConferMedia
import ConferCodecs

@Suite struct MediaFileInfoTests {
    /// Files named with misleading extensions are recognized by their magic bytes.
    @Test func probesEachFormatByMagic() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        var random = SeededRandom(seed: 17)

        let y4m = dir + "/video.wav"
        let y4mWriter = try Y4MWriter(path: y4m, width: 32, height: 24, frameRateNumerator: 25)
        for _ in 0..<10 { try y4mWriter.write(Support.randomFrame(width: 32, height: 24, random: &random)) }
        try y4mWriter.finish()
        var info = try MediaFileInfo.probe(path: y4m)
        #expect(info.format == .y4m && info.codec == "i420" && info.width == 32 && info.height == 24)
        #expect(info.frameRate == 25 && info.frameCount == 10 && info.duration == .milliseconds(400))

        let wav = dir + "/audio.y4m"
        let wavWriter = try WAVWriter(path: wav, channels: 2, sampleFormat: .float32)
        try wavWriter.write(AudioFrame(silenceOf: 24_000, channels: 2))
        try wavWriter.finish()
        info = try MediaFileInfo.probe(path: wav)
        #expect(info.format == .wav && info.codec == "float32" && info.sampleRate == 48_000 && info.channels == 2)
        #expect(info.frameCount == 24_000 && info.duration == .milliseconds(500))

        let ivf = dir + "/clip.bin"
        let ivfWriter = try IVFWriter(path: ivf, codec: .vp8, width: 64, height: 48, timebaseNumerator: 1, timebaseDenominator: 30)
        for i in 0..<6 {
            var data = IVFTests.vp8Key + [1, 2, 3]
            if i % 3 != 0 { data[0] |= 1 }
            try ivfWriter.write(EncodedFrame(codec: .vp8, data: data, timestamp: .fromTicks(Int64(i), rate: 30)))
        }
        try ivfWriter.finish()
        info = try MediaFileInfo.probe(path: ivf)
        #expect(info.format == .ivf && info.codec == "vp8" && info.width == 64 && info.height == 48)
        #expect(info.frameCount == 6 && info.keyframeCount == 2 && info.duration == .milliseconds(200))
        #expect(abs((info.frameRate ?? 0) - 30) < 0.001)

        var slices = SeededRandom(seed: 3)
        var stream: [UInt8] = []
        for i in 0..<9 {
            if i % 3 == 0 { stream += AnnexBTests.longCode + H264Build.sps(.init()) }
            stream += AnnexBTests.longCode + H264Build.slice(type: i % 3 == 0 ? 5 : 1, firstMB: 0, random: &slices)
        }
        info = try MediaFileInfo.probe(bytes: stream, h264FrameRate: 30)
        #expect(info.format == .h264 && info.width == 320 && info.height == 240)
        #expect(info.frameCount == 9 && info.keyframeCount == 3 && info.duration == .milliseconds(300))

        let opus = dir + "/voice.ivf"
        let opusWriter = try OggOpusWriter(path: opus, channels: 1)
        try opusWriter.write(AudioFrame(samples: Support.sine(frequency: 500, sampleRate: 48_000, frames: 4800, channels: 1), channels: 1))
        try opusWriter.finish()
        info = try MediaFileInfo.probe(path: opus)
        #expect(info.format == .oggOpus && info.codec == "opus" && info.channels == 1 && info.frameCount == 4800)
        #expect(info.duration == .milliseconds(100))

        // The summary is Codable for `confer probe --json`.
        let json = try JSONEncoder().encode(info)
        #expect(try JSONDecoder().decode(MediaFileInfo.self, from: json) == info)
        #expect(String(decoding: json, as: UTF8.self).contains("\"format\":\"ogg-opus\""))
    }

    @Test func rejectsUnknownAndEmptyInput() throws {
        Support.expectError(.truncated) { _ = try MediaFileInfo.probe(bytes: []) }
        let error = Support.expectError(.unsupported) { _ = try MediaFileInfo.probe(bytes: Array("GIF89a........".utf8)) }
        #expect(error?.detail.contains("47 49 46 38") == true)
        Support.expectError(.io) { _ = try MediaFileInfo.probe(path: "/nonexistent/confer/file.y4m") }
        // Recognized magic, broken body: the format's own error comes through.
        Support.expectError(.unsupported) { _ = try MediaFileInfo.probe(bytes: Array("YUV4MPEG2 W8 H8 C444\n".utf8)) }
        #expect(MediaFileInfo.detectFormat(magic: [0, 0, 0, 1, 0x67]) == .h264)
        #expect(MediaFileInfo.detectFormat(magic: [0, 0, 2]) == nil)
    }

    @Test(.enabled(if: Support.hasFFmpeg)) func probesFFmpegFiles() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/x.h264"
        try Support.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
                            "-bsf:v", "h264_mp4toannexb", "-f", "h264", path])
        let info = try MediaFileInfo.probe(path: path)
        #expect(info.format == .h264 && info.width == 320 && info.height == 240 && info.frameCount == 30 && info.keyframeCount == 1)
        #expect(info.duration == .seconds(1))
    }
}
