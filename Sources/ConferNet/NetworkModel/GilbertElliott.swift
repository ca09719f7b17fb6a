import ConferMedia

/// The Gilbert–Elliott burst-loss model: a two-state Markov chain (good, bad) stepped once
/// per packet, each state with its own loss probability.
///
/// With the usual settings (`lossInBad` 1, `lossInGood` 0, the "simple Gilbert" model) a
/// loss burst is one stay in the bad state, so bursts have a geometric length with mean
/// `1 / badToGood`, and the long-run loss rate is `goodToBad / (goodToBad + badToGood)`.
public struct GilbertElliott: Codable, Sendable, Equatable {
    /// Probability of moving from the good to the bad state after a packet (p).
    public var goodToBad: Double
    /// Probability of moving from the bad to the good state after a packet (r).
    public var badToGood: Double
    /// Probability that a packet is lost while in the bad state (1 − h).
    public var lossInBad: Double
    /// Probability that a packet is lost while in the good state (1 − k).
    public var lossInGood: Double

    /// A chain with the given transition and loss probabilities.
    public init(goodToBad: Double, badToGood: Double, lossInBad: Double = 1, lossInGood: Double = 0) {
        self.goodToBad = goodToBad
        self.badToGood = badToGood
        self.lossInBad = lossInBad
        self.lossInGood = lossInGood
    }

    /// A simple Gilbert chain whose loss bursts last `meanBurstLength` packets on average
    /// (at least 1) and which loses `lossRate` (0 ..< 1) of all packets in the long run.
    public init(meanBurstLength: Double, lossRate: Double) {
        let r = 1 / max(1, meanBurstLength.isFinite ? meanBurstLength : 1)
        let loss = min(max(lossRate.isFinite ? lossRate : 0, 0), 0.999)
        // Stationary P(bad) = p / (p + r) = loss  ⇒  p = r · loss / (1 − loss).
        self.init(goodToBad: min(1, r * loss / (1 - loss)), badToGood: r)
    }

    /// Long-run fraction of packets in the bad state.
    public var stationaryBadProbability: Double {
        let p = clampedProbability(goodToBad), r = clampedProbability(badToGood)
        return p + r > 0 ? p / (p + r) : 0
    }

    /// Long-run fraction of packets this chain loses.
    public var stationaryLossRate: Double {
        let bad = stationaryBadProbability
        return bad * clampedProbability(lossInBad) + (1 - bad) * clampedProbability(lossInGood)
    }

    /// Mean length of a stay in the bad state, in packets (the mean burst length when
    /// `lossInBad` is 1 and `lossInGood` is 0).
    public var meanBadStay: Double {
        let r = clampedProbability(badToGood)
        return r > 0 ? 1 / r : .infinity
    }
}

/// The running state of a ``GilbertElliott`` chain.
struct GilbertElliottState: Sendable {
    let model: GilbertElliott
    private(set) var isBad = false

    init(_ model: GilbertElliott) {
        // Clamped once here so the per-packet step is two comparisons.
        self.model = GilbertElliott(goodToBad: clampedProbability(model.goodToBad),
                                    badToGood: clampedProbability(model.badToGood),
                                    lossInBad: clampedProbability(model.lossInBad),
                                    lossInGood: clampedProbability(model.lossInGood))
    }

    /// Decides one packet's fate in the current state, then steps the chain; true when lost.
    mutating func nextIsLost(using random: inout SeededRandom) -> Bool {
        let lost = random.nextUnit() < (isBad ? model.lossInBad : model.lossInGood)
        let u = random.nextUnit()
        isBad = isBad ? u >= model.badToGood : u < model.goodToBad
        return lost
    }
}
