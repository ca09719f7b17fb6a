import ConferMedia
import Testing

/// A tiny lossy one-way link for the video jitter buffer tests (the real NetworkSimulator
/// lives elsewhere; these tests do not depend on it).
///
/// Each packet is lost with probability `lossRate` (seeded), or as part of a scheduled
/// burst of `burstRemaining` packets; otherwise it arrives after `baseDelay` plus an extra
/// delay drawn uniformly from 0…2·`jitter` (netem's `delay base+jitter jitter`, so the
/// least delayed packet takes `baseDelay`). Packets are delayed independently, so jitter
/// reorders them, as netem does — unless `preservesOrder`, when a packet never overtakes
/// the one sent before it (jitter from a queue, as on a bufferbloated link).
struct VideoTestLink {
    var baseDelay: TimeDelta
    var jitter: TimeDelta
    var lossRate: Double
    /// Packets still to drop in a burst.
    var burstRemaining = 0
    var preservesOrder = false
    private var lastArrival = Timestamp(microseconds: .min)
    var random: SeededRandom
    private(set) var sent = 0
    private(set) var lost = 0

    init(baseDelay: TimeDelta = .milliseconds(50), jitter: TimeDelta = .zero, lossRate: Double = 0, seed: UInt64) {
        self.baseDelay = baseDelay
        self.jitter = jitter
        self.lossRate = lossRate
        random = SeededRandom(seed: seed)
    }

    /// When a packet sent at `time` arrives, or nil when it is lost.
    mutating func transmit(at time: Timestamp) -> Timestamp? {
        sent += 1
        // Draw both numbers for every packet, so changing one setting does not shift the other's sequence.
        let lossDraw = random.nextUnit()
        let jitterDraw = random.nextUnit()
        if burstRemaining > 0 {
            burstRemaining -= 1
            lost += 1
            return nil
        }
        if lossDraw < lossRate {
            lost += 1
            return nil
        }
        let extra = Int64(jitterDraw * Double(2 * jitter.microseconds))
        var arrival = time + baseDelay + TimeDelta(microseconds: extra)
        if preservesOrder { arrival = max(arrival, lastArrival) }
        lastArrival = arrival
        return arrival
    }
}

@Suite("Video test link")
struct VideoTestLinkTests {
    @Test("is seeded: the same seed gives the same arrivals, and loss and delay stay in range")
    func seeded() {
        var a = VideoTestLink(jitter: .milliseconds(30), lossRate: 0.05, seed: 7)
        var b = VideoTestLink(jitter: .milliseconds(30), lossRate: 0.05, seed: 7)
        var arrivals = 0
        for index in 0 ..< 10_000 {
            let time = Timestamp.milliseconds(Int64(index))
            let first = a.transmit(at: time)
            #expect(first == b.transmit(at: time))
            if let first {
                arrivals += 1
                #expect(first - time >= .milliseconds(50) && first - time <= .milliseconds(110))
            }
        }
        #expect(abs(Double(a.lost) / 10_000 - 0.05) < 0.01)
        #expect(arrivals + a.lost == 10_000)
    }

    @Test("an order-preserving link never lets a packet overtake an earlier one")
    func preservesOrder() {
        var link = VideoTestLink(jitter: .milliseconds(100), seed: 3)
        link.preservesOrder = true
        var last = Timestamp.zero
        for index in 0 ..< 1000 {
            let arrival = link.transmit(at: .milliseconds(Int64(index)))!
            #expect(arrival >= last)
            last = arrival
        }
    }
}
