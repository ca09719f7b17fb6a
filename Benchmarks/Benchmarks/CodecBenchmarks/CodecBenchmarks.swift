import Benchmark
import ConferMedia

let benchmarks: @Sendable () -> Void = {
    Benchmark("Frame pool make+finish", configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput])) { benchmark in
        let pool = FramePool(width: 1280, height: 720)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(pool.makeFrame().finish())
        }
    }
}
