import ConferCongestion
import ConferMedia
import Testing

/// The pacer in virtual time: a burst spread at 2.5 × the target, a lone packet at once,
/// and a long queue drained within two seconds whatever the target.
@Suite struct PacerTests {
    /// Sends `count` packets of `size` bytes queued at time zero as the pacer lets them,
    /// and returns their departure times.
    static func departures(count: Int, size: Int, target: DataRate, queuedAtStart: Bool = true) -> [Timestamp] {
        var pacer = Pacer(target: target)
        var times: [Timestamp] = []
        var now = Timestamp.zero
        var queued = queuedAtStart ? count * size : 0
        for _ in 0 ..< count {
            pacer.setTarget(target, queuedBytes: queued, at: now)
            now = pacer.nextSendTime(at: now)
            let allowed = pacer.canSend(at: now)
            #expect(allowed)
            pacer.sent(size, at: now)
            queued -= size
            times.append(now)
        }
        return times
    }

    @Test func aKeyframeLeavesAtTwoAndAHalfTimesTheTarget() {
        // 30 packets of 1,200 bytes at 1 Mbit/s: 3.84 ms apart at 2.5 Mbit/s, the last
        // after 111 ms instead of all at once.
        let times = Self.departures(count: 30, size: 1200, target: .megabitsPerSecond(1))
        #expect(times[0] == .zero)
        for index in 1 ..< times.count {
            let gap = (times[index] - times[index - 1]).microseconds
            #expect(gap >= 3830 && gap <= 3850, "gap \(index): \(gap) µs")
        }
        #expect(times.last! >= .milliseconds(110) && times.last! <= .milliseconds(112))
    }

    @Test func aLonePacketOnAnIdleLinkLeavesAtOnce() {
        var pacer = Pacer(target: .kilobitsPerSecond(500))
        let idle = pacer.canSend(at: .seconds(3))
        #expect(idle)
        pacer.sent(1200, at: .seconds(3))
        let tooSoon = pacer.canSend(at: .seconds(3) + .milliseconds(1))
        #expect(!tooSoon)
        // 1,200 bytes at 1.25 Mbit/s: paid after 7.68 ms.
        let paid = Timestamp.seconds(3) + TimeDelta(microseconds: 7681)
        #expect(pacer.earliestSendTime.map { abs(($0 - paid).microseconds) <= 1 } == true)
        let afterPaying = pacer.canSend(at: paid)
        #expect(afterPaying)
        // A second later the debt is long paid: nothing is saved up for a burst either.
        let later = pacer.canSend(at: .seconds(4))
        #expect(later)
        #expect(pacer.debt == 0)
    }

    @Test func aLongQueueIsDrainedWithinTwoSeconds() {
        // 1 MB queued behind a 100 kbit/s target would take 32 s at 250 kbit/s; the rate is
        // raised to drain it in 2 s.
        var pacer = Pacer(target: .kilobitsPerSecond(100))
        pacer.setTarget(.kilobitsPerSecond(100), queuedBytes: 1_000_000, at: .zero)
        #expect(pacer.rate == .kilobitsPerSecond(4000))
        pacer.setTarget(.kilobitsPerSecond(100), queuedBytes: 0, at: .seconds(1))
        #expect(pacer.rate == .kilobitsPerSecond(250))
    }
}

extension PacerTests {
    /// A link the stream nearly fills is paced at its target (factor 1): a keyframe of 30
    /// packets at 300 kbit/s takes 960 ms instead of 384.
    @Test func aFactorOfOnePacesAtTheTarget() {
        var pacer = Pacer(target: .kilobitsPerSecond(300), factor: 1)
        var now = Timestamp.zero
        for _ in 0 ..< 30 {
            pacer.setTarget(.kilobitsPerSecond(300), queuedBytes: 0, at: now)
            now = pacer.nextSendTime(at: now)
            pacer.sent(1200, at: now)
        }
        // 29 gaps of 32 ms.
        #expect(abs((now - Timestamp.zero).microseconds - 928_000) <= 100, "last packet at \(now)")
        #expect(pacer.factor == 1)
    }
}
