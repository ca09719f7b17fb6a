import ConferJitter
import ConferMedia
import Testing

/// Target delay and render timing, with synthetic VP8 frames (two packets each).
@Suite("Video jitter buffer timing")
struct VideoTimingTests {
    @Test("30 ms jitter: the target stays within the link's p95 + 20 ms, and falls back within 5 s once jitter stops")
    func adaptsToJitter() throws {
        var options = VideoCallSimulation.Options()
        options.jitter = .milliseconds(30)
        options.seed = 11
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(10))
        let p95 = percentile(call.frameLinkJitter, 0.95)
        let steady = call.targets(in: .seconds(3) ..< .seconds(10))
        #expect(p95 > .milliseconds(45) && p95 < .milliseconds(61))
        #expect(steady.max()! <= p95 + .milliseconds(20))
        // It did adapt: well above the render margin alone.
        #expect(steady.min()! >= TimeDelta(microseconds: p95.microseconds * 3 / 4))
        let stats = call.buffer.statistics
        #expect(stats.framesDropped == 0 && stats.pliCount == 0)
        // Nearly every frame was on time: late ones are those past the 95th percentile.
        let late = call.deliveries.filter { $0.at - $0.renderTime > .milliseconds(2) }.count
        #expect(late * 100 <= call.deliveries.count * 5)

        call.link.jitter = .zero
        call.run(until: .seconds(15))
        let after = call.targets(in: .seconds(14.5) ..< .seconds(15))
        #expect(!after.isEmpty && after.max()! <= .milliseconds(15))
        // It came down gradually, not in one step: no frame was rendered early twice over.
        let falling = call.targets(in: .seconds(10) ..< .seconds(15))
        #expect(zip(falling, falling.dropFirst()).allSatisfy { $0.0 - $0.1 <= .milliseconds(10) })
    }

    @Test("500 ms jitter: the target never exceeds the cap in ms or in frames, and the cap hits are reported",
          arguments: [(400, 10), (300, 30)])
    func delayCap(maxDelayMs: Int, maxFrames: Int) throws {
        var options = VideoCallSimulation.Options()
        options.jitter = .milliseconds(500)
        options.seed = 5
        options.configuration.maxDelay = .milliseconds(Int64(maxDelayMs))
        options.configuration.maxDelayFrames = maxFrames
        var call = try VideoCallSimulation(options)
        // Queue-like jitter: with 500 ms of independent per-packet jitter nearly every frame
        // would be reordered across a dozen others and never complete within any cap.
        call.link.preservesOrder = true
        call.run(until: .seconds(8))
        let cap = min(TimeDelta.milliseconds(Int64(maxDelayMs)), call.frameInterval * Int64(maxFrames))
        let targets = call.deliveries.map(\.target)
        #expect(targets.count > 100)
        // A frame interval measured from 90 kHz timestamps may differ from 1/30 s by a microsecond or so.
        #expect(targets.max()! <= cap + TimeDelta(microseconds: 100))
        #expect(targets.max()! >= cap - .milliseconds(5))
        let stats = call.buffer.statistics
        #expect(stats.delayCapHits > 0 && stats.isDelayCapped)
        #expect(stats.currentTargetDelay <= cap.seconds + 0.0001)
        #expect(stats.jitterBufferTargetDelay / Double(stats.jitterBufferEmittedCount) <= cap.seconds + 0.0001)
    }

    @Test("a sender frozen for 3 s then resuming: one freeze of about 3 s, no keyframe request, delay unharmed",
          arguments: [true, false])
    func frozenSender(timestampsRun: Bool) throws {
        var options = VideoCallSimulation.Options()
        options.seed = 2
        var call = try VideoCallSimulation(options)
        call.timestampsRunWhilePaused = timestampsRun
        call.run(until: .seconds(2))
        call.pausedUntil = .seconds(5)
        call.run(until: .seconds(8))
        let stats = call.buffer.statistics
        #expect(stats.freezeCount == 1)
        #expect(abs(stats.totalFreezesDuration - 3.0) < 0.1)
        #expect(stats.pliCount == 0 && stats.framesDropped == 0 && stats.nackCount == 0)
        let resumed = call.deliveries.filter { $0.at >= .seconds(5) }
        #expect(resumed.count >= 85)
        let ids = call.deliveries.map(\.pictureID)
        #expect(ids == Array(0 ..< UInt16(ids.count)))
        // A sender whose clock stopped looks like a 3 s delay jump: treated as a discontinuity,
        // not as jitter, so the target stays small.
        #expect(stats.currentTargetDelay < 0.05)
        #expect(!stats.isDelayCapped)
    }
}
