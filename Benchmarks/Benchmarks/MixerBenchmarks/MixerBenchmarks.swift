// The compositing host's per-frame and per-10 ms work: composing N participants' latest
// frames into one canvas, and mixing N participants' audio (mix-minus) for one 10 ms step.
import Benchmark
import ConferMedia
import ConferMixer

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(2),
        maxIterations: 2000
    )

    // The reference the issue sets: composing a 2×2 grid should cost at most twice copying
    // one 720p frame. "hot" reads the same source every time (it stays in cache); "streaming"
    // cycles through 30 distinct sources, as fresh decoded frames would arrive. Compare
    // compose with copy in the same mode.
    let referenceSource = TestPatternSource(width: 1280, height: 720, colorIndex: 0)
    let references = (0..<30).map { i in
        var copy = MutableVideoFrame(layout: FrameLayout(width: 1280, height: 720))
        copy.copyPixels(from: referenceSource.render(frameIndex: i))
        return copy.finish()
    }
    let copyPool = FramePool(width: 1280, height: 720, capacity: 2)
    for (mode, distinct) in [("hot", 1), ("streaming", 30)] {
        var next = 0
        Benchmark("copy one 720p I420 frame (reference, \(mode))") { benchmark in
            for _ in benchmark.scaledIterations {
                let frame = copyPool.makeFrame()
                frame.copyPixels(from: references[next % distinct])
                blackHole(frame.finish())
                next += 1
            }
        }
    }

    do {
        var compositor = VideoCompositor(configuration: .init(width: 1280, height: 720))
        let sources = (0..<4).map { TestPatternSource(width: 640, height: 360, colorIndex: $0).render(frameIndex: $0) }
        for i in 0..<4 { compositor.add(participant: ParticipantID(UInt32(i + 1))) }
        var tick = 0
        Benchmark("compose 4 × 360p into 1280x720 grid (hot)") { benchmark in
            for _ in benchmark.scaledIterations {
                let time = Timestamp.seconds(Double(tick) / 30)
                for i in 0..<4 { compositor.update(participant: ParticipantID(UInt32(i + 1)), frame: sources[i], at: time) }
                blackHole(compositor.compose(at: time))
                tick += 1
            }
        }
    }

    for count in [4, 9, 16, 25] {
        // Canvas sizes as a host would use them: 2×2 of 360p is exactly 720p, 3×3 → 1080p.
        let (width, height) = count == 4 ? (1280, 720) : (1920, 1080)
        var compositor = VideoCompositor(configuration: .init(width: width, height: height))
        let sources = (0..<count).map { TestPatternSource(width: 640, height: 360, colorIndex: $0) }
        let inputs = sources.enumerated().map { i, source in
            (0..<30).map { index in
                var copy = MutableVideoFrame(layout: FrameLayout(width: 640, height: 360))
                copy.copyPixels(from: source.render(frameIndex: index + i))
                return copy.finish()
            }
        }
        for i in 0..<count { compositor.add(participant: ParticipantID(UInt32(i + 1))) }
        var tick = 0
        Benchmark("compose \(count) × 360p into \(width)x\(height) grid (streaming)") { benchmark in
            for _ in benchmark.scaledIterations {
                let time = Timestamp.seconds(Double(tick) / 30)
                for i in 0..<count {
                    var frame = inputs[i][tick % 30]
                    frame.timestamp = time
                    compositor.update(participant: ParticipantID(UInt32(i + 1)), frame: frame, at: time)
                }
                blackHole(compositor.compose(at: time))
                tick += 1
            }
        }
    }

    for count in [4, 9, 16, 25] {
        var mixer = AudioMixer<ParticipantID>()
        var tones = (0..<count).map { ToneSource(index: $0, pattern: .speech, seed: UInt64($0)) }
        var blocks = (0..<count).map { _ in AudioFrame(silenceOf: 480, channels: 1) }
        for i in 0..<count { try! mixer.add(ParticipantID(UInt32(i + 1))) }
        var step = 0
        Benchmark("mix-minus 10 ms, \(count) participants") { benchmark in
            for _ in benchmark.scaledIterations {
                for i in 0..<count {
                    tones[i].fill(into: &blocks[i])
                    try! mixer.push(blocks[i], from: ParticipantID(UInt32(i + 1)))
                }
                blackHole(mixer.mix(at: .milliseconds(Int64(step) * 10)))
                step += 1
            }
        }
    }
}
