// Host scale: one iteration is one second of a compositing host's video work (30 output
// frames): decode one frame of each of N participants' VP8 640×360 streams, lay them out
// on a 1280×720 grid, encode the canvas once (VP8 realtime cpu-used 8, 1.5 Mbit/s). The
// real-time factor is 1 s / the time per iteration. Both run Confer's CompositeLoop over the
// compositing step HostPipeline runs inline (HostComposer): "1 thread" in order on one
// core; "2 threads" decodes and composes frame k + 1 while frame k is encoded, the encoding
// thread taking decodes whenever it is idle.
// For CPU time and longer runs, use the HostScale tool (Benchmarks/peers/host-scale.sh).
import Benchmark
import HostScaleKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 20
    )

    let counts = [4, 9, 16, 25]
    // Five seconds per participant, each starting with its keyframe; 150 frames loop five
    // times in a 30-iteration run at most, so keyframes are 1 in 150 decodes.
    let clips = try! HostScaleClips(participants: counts.max()!, frames: 150, content: .card)
    for participants in counts {
        for threads in [1, 2] {
            Benchmark("host \(participants) × 360p → 720p, 1 s of video, \(threads) thread\(threads == 1 ? "" : "s")") { benchmark in
                let host = try HostScaleHost(clips: clips, participants: participants, threads: threads)
                try host.run(frames: 30)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    try host.run(frames: 30)
                }
                benchmark.stopMeasurement()
                blackHole(host.encodedBytes)
            }
        }
    }
}
