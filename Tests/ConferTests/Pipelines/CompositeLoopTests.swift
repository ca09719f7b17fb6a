import Testing
@testable import Confer
import ConferMedia
import ConferMixer

/// A test-card participant that records which frames it was asked for. It shows a new
/// picture on every frame except those in `silentFrames`, and fails at `failingFrame`.
private final class RecordingSource: CompositeSource {
    struct Failure: Error, Equatable { let frame: Int }

    let pattern: TestPatternSource
    var requested: [Int] = []
    var silentFrames: Set<Int> = []
    var failingFrame: Int?

    init(index: Int) {
        pattern = TestPatternSource(width: 160, height: 90, colorIndex: index, seed: UInt64(index + 1), poolCapacity: 8)
    }

    func picture(forFrame index: Int, at time: Timestamp) throws -> VideoFrame? {
        requested.append(index)
        if index == failingFrame { throw Failure(frame: index) }
        if silentFrames.contains(index) { return nil }
        var frame = pattern.render(frameIndex: index)
        frame.timestamp = time
        return frame
    }
}

@Suite struct CompositeLoopTests {
    private static func loop(sources: [RecordingSource], threads: Int) -> CompositeLoop {
        let compositor = VideoCompositor(configuration: .init(width: 320, height: 180, poolCapacity: 4))
        return CompositeLoop(compositor: compositor,
                             sources: sources.enumerated().map { (ParticipantID(UInt32($0.offset + 1)), $0.element) },
                             threads: threads)
    }

    /// Every canvas's luma plane, summed into a fingerprint per frame.
    private static func fingerprint(_ canvas: VideoFrame) -> UInt64 {
        var hash: UInt64 = 1469598103934665603
        for row in 0..<canvas.height {
            for byte in canvas.y.row(row) { hash = (hash ^ UInt64(byte)) &* 1099511628211 }
        }
        return hash
    }

    @Test func twoThreadsComposeExactlyWhatOneThreadDoes() throws {
        var results: [[UInt64]] = []
        for threads in [1, 2] {
            let sources = (0..<5).map { RecordingSource(index: $0) }
            sources[2].silentFrames = [3, 4, 5]
            let loop = Self.loop(sources: sources, threads: threads)
            var fingerprints: [UInt64] = []
            var times: [Timestamp] = []
            try loop.run(frames: 24) { canvas in
                fingerprints.append(Self.fingerprint(canvas))
                times.append(canvas.timestamp)
            }
            #expect(times == (0..<24).map { loop.time(ofFrame: $0) }, "threads \(threads): canvases in order")
            for source in sources { #expect(source.requested == Array(0..<24), "threads \(threads)") }
            #expect(loop.statistics.frames == 24 && loop.statistics.reads == 5 * 24)
            #expect(loop.compositor.statistics.composedFrames == 24)
            // Frames 3–5 of source 2 keep showing its frame-2 picture (well within the
            // placeholder timeout).
            let drawn = loop.compositor.statistics
            #expect(drawn.placeholderSlots == 0 && drawn.copiedSlots + drawn.scaledSlots == 5 * 24)
            results.append(fingerprints)
        }
        #expect(results[0] == results[1])
        // The test card moves, so the canvases differ from frame to frame.
        #expect(Set(results[0]).count == 24)
    }

    /// HostPipeline composes with the loop's step, inline: frame by frame it must give the
    /// canvases the threaded loop gives, and drop a frame's reads when a source fails.
    @Test func theHostsInlineStepComposesWhatTheLoopDoes() throws {
        let looped = (0..<4).map { RecordingSource(index: $0) }
        looped[3].silentFrames = [2, 7]
        let loop = Self.loop(sources: looped, threads: 2)
        var expected: [UInt64] = []
        try loop.run(frames: 12) { expected.append(Self.fingerprint($0)) }

        let inline = (0..<4).map { RecordingSource(index: $0) }
        inline[3].silentFrames = [2, 7]
        var composer = HostComposer(compositor: VideoCompositor(configuration: .init(width: 320, height: 180, poolCapacity: 4)))
        for (i, source) in inline.enumerated() { composer.add(ParticipantID(UInt32(i + 1)), source: source) }
        var composed: [UInt64] = []
        for frame in 0..<12 {
            composed.append(Self.fingerprint(try composer.compose(frame: frame, at: loop.time(ofFrame: frame))))
        }
        #expect(composed == expected)
        #expect(composer.compositor.statistics == loop.compositor.statistics)

        inline[2].failingFrame = 12
        #expect(throws: RecordingSource.Failure(frame: 12)) { try composer.compose(frame: 12, at: loop.time(ofFrame: 12)) }
        #expect(composer.pictures.allSatisfy { $0 == nil }, "the failed frame's reads are dropped")
        #expect(composer.compositor.statistics.composedFrames == 12)
        composer.remove(ParticipantID(2))
        #expect(composer.participants == [1, 3, 4].map { ParticipantID(UInt32($0)) })
        #expect(composer.compositor.members == composer.participants)
    }

    @Test func runsContinueTheFrameCount() throws {
        let sources = (0..<3).map { RecordingSource(index: $0) }
        let loop = Self.loop(sources: sources, threads: 2)
        var consumed = 0
        try loop.run(frames: 7) { _ in consumed += 1 }
        try loop.run(frames: 5) { _ in consumed += 1 }
        #expect(consumed == 12 && loop.nextFrame == 12)
        for source in sources { #expect(source.requested == Array(0..<12)) }
        // Never more canvases alive than the pool holds (queued, consumed, composed).
        #expect(loop.compositor.pool.overflowCount == 0)
        #expect(loop.statistics.readsOnConsumerThread <= loop.statistics.reads)
    }

    @Test(arguments: [1, 2])
    func aSourceErrorStopsTheLoop(threads: Int) throws {
        let sources = (0..<4).map { RecordingSource(index: $0) }
        sources[1].failingFrame = 6
        let loop = Self.loop(sources: sources, threads: threads)
        var consumed: [Timestamp] = []
        #expect(throws: RecordingSource.Failure(frame: 6)) {
            try loop.run(frames: 20) { consumed.append($0.timestamp) }
        }
        // Frames before the failing one may be consumed; none after it is composed.
        #expect(consumed.count <= 6)
        #expect(sources[1].requested.last == 6)
        for source in sources { #expect((source.requested.max() ?? 0) <= 6) }
    }

    @Test(arguments: [1, 2])
    func aConsumerErrorStopsTheProducer(threads: Int) throws {
        struct Stop: Error {}
        let sources = (0..<4).map { RecordingSource(index: $0) }
        let loop = Self.loop(sources: sources, threads: threads)
        var consumed = 0
        #expect(throws: Stop.self) {
            try loop.run(frames: 50) { _ in
                consumed += 1
                if consumed == 5 { throw Stop() }
            }
        }
        // The producer runs at most the queue depth (and the frame it is composing) ahead.
        for source in sources { #expect(source.requested.count <= 5 + loop.queueDepth + 1) }
        #expect(loop.compositor.pool.overflowCount == 0)
        // The loop can go on; sources never see a frame twice.
        let resumed = loop.nextFrame
        var times: [Timestamp] = []
        try loop.run(frames: 6) { times.append($0.timestamp) }
        #expect(times == (resumed..<resumed + 6).map { loop.time(ofFrame: $0) })
        for source in sources {
            #expect(zip(source.requested, source.requested.dropFirst()).allSatisfy { $0 < $1 })
            #expect(source.requested.last == resumed + 5)
        }
    }
}
