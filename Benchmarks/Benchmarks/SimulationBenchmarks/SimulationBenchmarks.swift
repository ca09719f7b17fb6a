// How much faster than real time `confer simulate` runs: the 30 s VP8 call at 5 %
// loss, 50 ms one way (100 ms RTT) and 30 ms jitter, sender → network → receiver with
// NACK/RTX and feedback, in virtual time.
//
// Each iteration is one whole 30 s simulation. "simulated ms per wall s" is the figure to
// read (divide by 1000 for simulated seconds per wall second); wall clock is per run.
// Input frames are pre-rendered (3 s of the test card, looped) so drawing them is not timed.
//
// The meeting rows run `confer meeting`'s whole simulation: N participants (320×180 or
// 640×360 synthetic cameras and voices) sending to the compositing host over 25 ms paths,
// the host composing 1280×720 and encoding it once, every participant decoding it, SRTP on.
import Benchmark
import Confer
import ConferSimulation
import ConferMedia
import ConferNet

/// `seconds` of the test card at `width` × `height`, 30 fps, from 90 pre-rendered frames.
func loopedPattern(width: Int, height: Int, seconds: Int) -> SimulationMedia {
    let source = TestPatternSource(width: width, height: height, colorIndex: 2, seed: 7)
    let frames: [VideoFrame] = (0 ..< 90).map { index in
        let copy = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
        copy.copyPixels(from: source.render(frameIndex: index))
        return copy.finish()
    }
    let total = seconds * 30
    var produced = 0
    return SimulationMedia(width: width, height: height, frameRate: 30, expectedFrameCount: total, nextVideoFrame: {
        guard produced < total else { return nil }
        defer { produced += 1 }
        return frames[produced % frames.count]
    })
}

let simulatedPerWall = BenchmarkMetric.custom("simulated ms per wall s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, simulatedPerWall],
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(60),
        maxIterations: 3
    )

    let lossy = NetworkConditions(delay: .milliseconds(50), jitter: .normal(.milliseconds(30)), loss: 0.05)
    for (name, width, height) in [("320x240", 320, 240), ("640x360", 640, 360)] {
        Benchmark("simulate vp8 \(name) 30 s, 5 % loss, 100 ms RTT, 30 ms jitter") { benchmark in
            for _ in benchmark.scaledIterations {
                let media = loopedPattern(width: width, height: height, seconds: 30)
                benchmark.startMeasurement()
                let report = try! Simulation.run(media, options: SimulationOptions(codec: .vp8, forward: lossy, seed: 1))
                benchmark.stopMeasurement()
                benchmark.measurement(simulatedPerWall, Int(report.speed * 1000))
                blackHole(report)
            }
        }
    }

    for participants in [4, 9] {
        Benchmark("meeting \(participants) participants 640x360 → 1280x720 vp8, 10 s") { benchmark in
            for _ in benchmark.scaledIterations {
                benchmark.startMeasurement()
                let report = try! Meeting.run(options: MeetingOptions(participants: participants, seed: 1))
                benchmark.stopMeasurement()
                benchmark.measurement(simulatedPerWall, Int(report.speed * 1000))
                blackHole(report)
            }
        }
    }
}
