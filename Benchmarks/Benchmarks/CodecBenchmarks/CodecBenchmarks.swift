// Encode and decode speed of every codec at 360p and 720p, and allocations per frame.
//
// Each iteration is one frame (or one 20 ms Opus packet), so "Throughput (# / s)" reads as
// frames per second and "Malloc (total)" as allocations per frame after warm-up.
import Benchmark
import ConferCodecs
import ConferMedia

/// Pre-rendered input frames: the test card (easy, like testsrc2) or moving noise (hard).
func frames(width: Int, height: Int, count: Int, noisy: Bool) -> [VideoFrame] {
    if noisy {
        let source = NoisePatternSource(width: width, height: height, seed: 7)
        return (0..<count).map { i in
            // Copy out of the source's small pool so every frame stays distinct.
            var copy = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
            copy.copyPixels(from: source.render(frameIndex: i))
            copy.timestamp = .seconds(Double(i) / 30)
            return copy.finish()
        }
    }
    let source = TestPatternSource(width: width, height: height, colorIndex: 3, seed: 7)
    return (0..<count).map { i in
        var copy = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
        copy.copyPixels(from: source.render(frameIndex: i))
        copy.timestamp = .seconds(Double(i) / 30)
        return copy.finish()
    }
}

let sizes: [(name: String, width: Int, height: Int, kbps: Int)] = [("360p", 640, 360, 800), ("720p", 1280, 720, 1500)]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(3),
        maxIterations: 600
    )

    for size in sizes {
        for codec in [Codec.vp8, .vp9, .h264] {
            for noisy in [false, true] {
                let input = frames(width: size.width, height: size.height, count: 60, noisy: noisy)
                let settings = VideoEncoderSettings(width: size.width, height: size.height, frameRate: 30,
                                                    bitrate: size.kbps * 1000, threads: 1, speed: 8)
                // Every frame is encoded (no rate-control drops), so frames per second is honest.
                let encoder = try! AnyVideoEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
                var output = EncodedFrame(codec: codec)
                var index = 0
                Benchmark("encode \(codec) \(size.name) \(noisy ? "noise" : "testcard") 1 thread") { benchmark in
                    for _ in benchmark.scaledIterations {
                        var frame = input[index % input.count]
                        frame.timestamp = .seconds(Double(index) / 30)
                        index += 1
                        blackHole(try! encoder.encode(frame, into: &output))
                    }
                }
            }

            // Decode a looping 2 s clip whose first frame is the only keyframe.
            let input = frames(width: size.width, height: size.height, count: 60, noisy: false)
            let encoder = try! AnyVideoEncoder(codec: codec, settings: VideoEncoderSettings(
                width: size.width, height: size.height, bitrate: size.kbps * 1000, speed: 8, keyframeInterval: 60))
            var clip: [EncodedFrame] = []
            for (i, frame) in input.enumerated() {
                var out = EncodedFrame(codec: codec)
                var f = frame
                f.timestamp = .seconds(Double(i) / 30)
                if try! encoder.encode(f, into: &out) { clip.append(out) }
            }
            let decoder = try! AnyVideoDecoder(codec: codec)
            var next = 0
            Benchmark("decode \(codec) \(size.name) testcard 1 thread") { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try! decoder.decode(clip[next % clip.count]))
                    next += 1
                }
            }
        }
    }

    // Opus: 20 ms stereo packets at 64 kbit/s. One iteration is 20 ms of audio, so real-time
    // factor = throughput / 50.
    var tone = ToneSource(index: 2, channels: 2, pattern: .continuous)
    let pcm = (0..<50).map { _ in tone.next(frameCount: 960) }
    var opus = try! OpusEncoder(settings: AudioEncoderSettings(channels: 2, bitrate: 64_000, frameDurationMs: 20, complexity: 10))
    var packet = EncodedFrame(codec: .opus)
    var packets: [EncodedFrame] = []
    for frame in pcm {
        try! opus.encode(frame, into: &packet)
        packets.append(packet)
    }
    var encodeIndex = 0
    Benchmark("encode opus 48k stereo 64k 20ms") { benchmark in
        for _ in benchmark.scaledIterations {
            try! opus.encode(pcm[encodeIndex % pcm.count], into: &packet)
            encodeIndex += 1
            blackHole(packet.data.count)
        }
    }
    var opusDecoder = try! OpusDecoder(channels: 2)
    var decodeIndex = 0
    Benchmark("decode opus 48k stereo 64k 20ms") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! opusDecoder.decode(packets[decodeIndex % packets.count]))
            decodeIndex += 1
        }
    }
}
