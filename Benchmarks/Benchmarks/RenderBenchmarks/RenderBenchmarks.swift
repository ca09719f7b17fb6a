// The frame pacer: the cost of one refresh (deciding which views draw, and drawing them
// into RGBA) for 4, 8 and 25 views fed at 30 fps under a 120 draws/s budget.
import Benchmark
import ConferMedia
import ConferRender

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 60,
        maxDuration: .seconds(2),
        maxIterations: 3000
    )

    for count in [4, 8, 25] {
        let pacer = try! FramePacer(drawsPerSecond: 120, refreshRate: 60)
        for i in 0..<count {
            try! pacer.add(RenderView(id: ViewID(i), stream: StreamID(UInt64(i)), width: 320, height: 180,
                                      priority: i == 0 ? .high : .normal))
        }
        let frames = (0..<2).map { TestPatternSource(width: 640, height: 360, colorIndex: $0).render(frameIndex: 0) }
        var refresh = 0
        Benchmark("pacer refresh, \(count) views of 320x180 at 30 fps, 120 draws/s") { benchmark in
            for _ in benchmark.scaledIterations {
                // 60 Hz refreshes; each source delivers a new frame every second refresh.
                if refresh % 2 == 0 {
                    for i in 0..<count { blackHole(pacer.submit(stream: StreamID(UInt64(i)), frame: frames[(refresh / 2) % 2])) }
                }
                blackHole(pacer.refresh(at: .seconds(Double(refresh) / 60)))
                refresh += 1
            }
        }
    }
}
