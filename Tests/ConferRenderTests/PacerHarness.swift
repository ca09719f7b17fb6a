import ConferMedia
@testable import ConferRender

/// Drives a pacer in virtual time: sources deliver frames at their exact times and every
/// refresh happens at its deadline, as a display would.
final class PacerHarness {
    struct Source {
        var stream: StreamID
        var fps: Int
        var offset: Int64 = 0
        var next = 0

        /// Frame `k` arrives at offset + ⌈k × 1 s / fps⌉ µs.
        var nextArrival: Int64 { offset + (Int64(next) * 1_000_000 + Int64(fps) - 1) / Int64(fps) }
    }

    let pacer: FramePacer
    var sources: [Source]
    var frame: VideoFrame
    var results: [RefreshResult] = []
    var tick: Int64 = 0

    init(pacer: FramePacer, sources: [Source], frame: VideoFrame = PacerHarness.solid(.white)) {
        self.pacer = pacer
        self.sources = sources
        self.frame = frame
    }

    /// A pacer with `views` 32×18 views, view i bound to stream i, and a `fps` source per stream.
    convenience init(views: Int, fps: Int, drawsPerSecond: Int = 120, refreshRate: Int = 60) throws {
        let pacer = try FramePacer(drawsPerSecond: drawsPerSecond, refreshRate: refreshRate)
        for i in 0..<views {
            try pacer.add(RenderView(id: ViewID(i), stream: StreamID(UInt64(i)), width: 32, height: 18))
        }
        self.init(pacer: pacer, sources: (0..<views).map { Source(stream: StreamID(UInt64($0)), fps: fps) })
    }

    /// Submits every frame due by `deadline`, earliest first (ties in source order).
    func feed(until deadline: Timestamp) {
        while true {
            var best: Int?
            for i in sources.indices where sources[i].nextArrival <= deadline.microseconds {
                if best == nil || sources[i].nextArrival < sources[best!].nextArrival { best = i }
            }
            guard let i = best else { return }
            pacer.submit(stream: sources[i].stream, frame: frame)
            sources[i].next += 1
        }
    }

    /// Runs `seconds` seconds of refreshes.
    func run(seconds: Int) {
        for _ in 0..<(seconds * pacer.refreshRate) {
            let deadline = pacer.schedule.deadline(ofTick: tick)
            feed(until: deadline)
            results.append(pacer.refresh(at: deadline))
            tick += 1
        }
    }

    /// Draws of `view` in each whole second of the results, from second `from`.
    func drawsPerSecond(_ view: ViewID, from: Int = 0) -> [Int] {
        let rate = Int64(pacer.refreshRate)
        let seconds = Int((results.last?.tick ?? -1) / rate) + 1
        var counts = [Int](repeating: 0, count: seconds)
        for r in results { counts[Int(r.tick / rate)] += r.drawn.filter { $0 == view }.count }
        return Array(counts.dropFirst(from))
    }

    func statistics(_ view: ViewID) -> ViewStatistics? {
        pacer.statistics().views.first { $0.view == view }
    }

    static func solid(_ color: YUVColor, width: Int = 32, height: Int = 18) -> VideoFrame {
        let frame = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
        frame.fill(with: color)
        return frame.finish()
    }
}
