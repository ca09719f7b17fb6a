import ConferMedia
import ConferNet
import Testing

/// What is kept for an address until its first consent, in virtual time.
@Suite struct ConsentHoldTests {
    @Test func whatComesBeforeTheFirstGrantIsKeptAndReleasedWithIt() {
        var decision = ConsentHold.Decision.drop
        var outcome = false
        var hold = ConsentHold()
        for index in 0 ..< 30 {
            decision = hold.decide(byteCount: 1200, at: .milliseconds(Int64(index)))
            #expect(decision == .hold)
        }
        #expect(hold.datagrams == 30 && hold.bytes == 36_000 && hold.oldest == .zero)
        outcome = hold.release(at: .milliseconds(40))
        #expect(outcome, "40 ms after the first: send them")
        #expect(hold.released == 30 && hold.discarded == 0)
        #expect(!hold.isHolding && hold.datagrams == 0 && hold.bytes == 0)
        decision = hold.decide(byteCount: 1200, at: .milliseconds(50))
        #expect(decision == .drop, "for the first grant only")
        outcome = hold.release(at: .seconds(40))
        #expect(!outcome, "a later grant (consent ran out) has nothing to send")
        #expect(hold.released == 30 && hold.discarded == 0, "nothing dropped that was kept")
    }

    @Test func aGrantWithNothingKeptReleasesNothingAndEndsTheHold() {
        var decision = ConsentHold.Decision.drop
        var outcome = false
        var hold = ConsentHold()
        outcome = hold.release(at: .seconds(1))
        #expect(outcome, "nothing kept: nothing to ask for either, the keyframe is still coming")
        #expect(hold.released == 0 && !hold.isHolding)
        decision = hold.decide(byteCount: 100, at: .seconds(2))
        #expect(decision == .drop)
    }

    @Test func theHoldEndsDroppingAllWhenADatagramWouldStayLongerThanItsLimit() {
        var decision = ConsentHold.Decision.drop
        var outcome = false
        var hold = ConsentHold(maximumAge: .milliseconds(500))
        decision = hold.decide(byteCount: 1000, at: .milliseconds(100))
        #expect(decision == .hold)
        decision = hold.decide(byteCount: 1000, at: .milliseconds(600))
        #expect(decision == .hold, "the first is 500 ms old: still kept")
        decision = hold.decide(byteCount: 1000, at: Timestamp(microseconds: 600_001))
        #expect(decision == .dropAll, "the first would be older")
        #expect(hold.discarded == 2 && !hold.isHolding && hold.datagrams == 0)
        decision = hold.decide(byteCount: 1000, at: .milliseconds(700))
        #expect(decision == .drop, "over for good")
        outcome = hold.release(at: .milliseconds(700))
        #expect(!outcome, "the grant then asks for a keyframe")
        #expect(hold.released == 0 && hold.discarded == 2)
    }

    @Test func aGrantAfterTheOldestGrewTooOldDropsWhatWasKept() {
        var decision = ConsentHold.Decision.drop
        var outcome = false
        var hold = ConsentHold(maximumAge: .milliseconds(500))
        decision = hold.decide(byteCount: 1000, at: .zero)
        #expect(decision == .hold)
        decision = hold.decide(byteCount: 1000, at: .milliseconds(400))
        #expect(decision == .hold)
        outcome = hold.release(at: .milliseconds(501))
        #expect(!outcome, "the keyframe kept first is stale")
        #expect(hold.discarded == 2 && hold.released == 0 && !hold.isHolding)
    }

    @Test func theHoldEndsWhenItWouldKeepTooManyDatagramsOrBytes() {
        var decision = ConsentHold.Decision.drop
        var byCount = ConsentHold(maximumDatagrams: 3, maximumBytes: 10_000)
        for _ in 0 ..< 3 {
            decision = byCount.decide(byteCount: 10, at: .zero)
            #expect(decision == .hold)
        }
        decision = byCount.decide(byteCount: 10, at: .zero)
        #expect(decision == .dropAll, "a fourth datagram")
        #expect(byCount.discarded == 3)

        var byBytes = ConsentHold(maximumDatagrams: 100, maximumBytes: 2500)
        decision = byBytes.decide(byteCount: 1200, at: .zero)
        #expect(decision == .hold)
        decision = byBytes.decide(byteCount: 1300, at: .zero)
        #expect(decision == .hold, "exactly the limit")
        decision = byBytes.decide(byteCount: 1, at: .zero)
        #expect(decision == .dropAll, "one byte more")
        #expect(byBytes.discarded == 2 && byBytes.bytes == 0)
    }

    @Test func abandoningDropsWhatWasKept() {
        var decision = ConsentHold.Decision.drop
        var outcome = false
        var hold = ConsentHold()
        decision = hold.decide(byteCount: 10, at: .zero)
        #expect(decision == .hold)
        hold.abandon()
        #expect(hold.discarded == 1 && !hold.isHolding)
        decision = hold.decide(byteCount: 10, at: .zero)
        #expect(decision == .drop)
        outcome = hold.release(at: .zero)
        #expect(!outcome)
        hold.abandon()
        #expect(hold.discarded == 1, "once")
    }

    /// Random datagrams, gaps and one grant, against the rule written plainly: keep until the
    /// grant unless a bound is crossed; every datagram is either released or dropped, once.
    @Test(arguments: 1 ... 5 as ClosedRange<UInt64>)
    func everyDatagramIsReleasedOrDroppedOnceAsThePlainRuleSays(seed: UInt64) {
        var outcome = false
        var random = SeededRandom(seed: seed)
        let maximumDatagrams = Int.random(in: 5 ... 60, using: &random)
        let maximumBytes = Int.random(in: 5_000 ... 60_000, using: &random)
        let maximumAge = TimeDelta.milliseconds(Int64.random(in: 50 ... 400, using: &random))
        for _ in 0 ..< 600 {
            var hold = ConsentHold(maximumDatagrams: maximumDatagrams, maximumBytes: maximumBytes, maximumAge: maximumAge)
            var now = Timestamp.zero
            var kept: [(Timestamp, Int)] = []
            var holding = true
            var sent = 0, dropped = 0, given = 0
            let grantAfter = Int.random(in: 0 ... 80, using: &random)
            for step in 0 ... 100 {
                now += TimeDelta(microseconds: Int64.random(in: 0 ... 20_000, using: &random))
                if step == grantAfter {
                    let stale = kept.first.map { now - $0.0 > maximumAge } ?? false
                    let expected = holding && !stale
                    outcome = hold.release(at: now)
                    #expect(outcome == expected)
                    if expected { sent += kept.count } else { dropped += kept.count }
                    kept = []
                    holding = false
                    continue
                }
                let size = Int.random(in: 1 ... 1500, using: &random)
                given += 1
                let decision = hold.decide(byteCount: size, at: now)
                guard holding else {
                    #expect(decision == .drop)
                    dropped += 1
                    continue
                }
                let bytes = kept.reduce(0) { $0 + $1.1 } + size
                let stale = kept.first.map { now - $0.0 > maximumAge } ?? false
                if kept.count + 1 > maximumDatagrams || bytes > maximumBytes || stale {
                    #expect(decision == .dropAll)
                    dropped += kept.count + 1
                    kept = []
                    holding = false
                } else {
                    #expect(decision == .hold)
                    kept.append((now, size))
                }
                #expect(hold.datagrams == kept.count && hold.bytes == kept.reduce(0) { $0 + $1.1 })
            }
            dropped += kept.count
            hold.abandon()
            #expect(hold.released == sent, "released as the rule says")
            #expect(sent + dropped == given, "each datagram once")
        }
    }
}
