/// Chooses which receivers of one picture get a second, smaller encode of it, and both
/// encodes' bitrates, from each receiver's bandwidth estimate: how a compositing host keeps
/// a weak link from setting everyone's rate when even a lower frame rate would not fit it.
///
/// One encode must fit its weakest receiver. With a second, the weakest receivers take the
/// second at the rate of the weakest among them, and the first follows the rest. Of the
/// ways to split the receivers by their budgets (the weakest k take the second), the
/// allocator picks the one that maximises the product (the sum of the logarithms) of what
/// each receiver gets (proportional fairness: a receiver's rate halved costs as much as another's
/// doubled gains), less a cost for running the second encode at all
/// (``Configuration/secondEncodeCost``, as a gain each receiver must see). It changes the
/// split only when the new one wins ``Configuration/switchGain`` per receiver, so an
/// estimate that wavers does not move receivers (each move costs a keyframe); receivers
/// that may not move now keep the stream they have.
///
/// When the first encode has temporal layers, a receiver on it needs only the base layer
/// to follow it (``allocate(budgets:current:movable:minimum:maximum:baseShares:)``): the
/// first encode may then run at its budget over the base layer's share, and it gets what
/// its own link carries of it. So the second encode goes only to the links too weak for
/// the base layer, and the middle links keep the first encode at fewer layers.
public struct SimulcastAllocator: Sendable {
    /// The allocator's settings.
    public struct Configuration: Sendable, Hashable {
        /// The gain each receiver must see, on the mean (in the geometric sense), for the
        /// second encode to be worth running (1.15: 15 %).
        public var secondEncodeCost: Double
        /// The further gain per receiver a new split must win over the current one. With
        /// the defaults, the second encode starts when it gains each receiver 21 % on the
        /// mean and stops when that falls below 9.5 %.
        public var switchGain: Double

        /// Settings with the defaults.
        public init(secondEncodeCost: Double = 1.15, switchGain: Double = 1.05) {
            self.secondEncodeCost = secondEncodeCost
            self.switchGain = switchGain
        }
    }

    /// What the allocator decided.
    public struct Allocation: Sendable, Hashable {
        /// The first encode's bitrate, bit/s.
        public var bitrate: Int
        /// The second encode's bitrate; nil when nobody gets it.
        public var secondBitrate: Int?
        /// Whether each receiver gets the second encode, in the order the budgets were given.
        public var second: [Bool]
    }

    /// The settings.
    public let configuration: Configuration

    /// An allocator with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Splits receivers with these `budgets` (bit/s each can take) between the encodes;
    /// `current` says who gets the second now, `movable` who may change now (the others
    /// keep theirs). Bitrates stay within `minimum`…`maximum`.
    ///
    /// `baseShares` is, per receiver, the share of the first encode it must carry to
    /// follow it: its base layer's share when the first encode has temporal layers and the
    /// receiver may take fewer of them, 1 otherwise (and for missing entries). A receiver
    /// on the first encode then bounds its bitrate by its budget over that share, and
    /// counts as getting the smaller of the two.
    public func allocate(budgets: [Int], current: [Bool], movable: [Bool], minimum: Int, maximum: Int,
                         baseShares: [Double] = []) -> Allocation {
        let count = budgets.count
        let caps = budgets.indices.map { receiver in
            let share = receiver < baseShares.count ? min(max(baseShares[receiver], 0.05), 1) : 1
            return Int(min(Double(budgets[receiver]) / share, Double(Int.max / 2)))
        }
        func score(_ second: [Bool]) -> Double {
            self.score(second, budgets: budgets, caps: caps, minimum: minimum, maximum: maximum)
        }
        guard count > 0, current.count == count, movable.count == count else {
            return Allocation(bitrate: clamp(caps.min() ?? maximum, minimum, maximum), secondBitrate: nil,
                              second: Array(repeating: false, count: count))
        }
        let order = budgets.indices.sorted { (budgets[$0], $0) < (budgets[$1], $1) }
        var best = current
        var bestScore = score(current)
        let currentScore = bestScore
        // The k weakest movable receivers on the second encode, the others where they are:
        // each candidate is the previous one with the next weakest moved.
        var candidate = (0 ..< count).map { movable[$0] ? false : current[$0] }
        for weakest in 0 ..< count {
            if weakest > 0, movable[order[weakest - 1]] { candidate[order[weakest - 1]] = true }
            let value = score(candidate)
            if value > bestScore { (best, bestScore) = (candidate, value) }
        }
        if bestScore < currentScore * power(configuration.switchGain, count) { best = current }
        if score(best) == 0 {
            best = Array(repeating: false, count: count)
        }
        let rates = bitrates(best, budgets: budgets, caps: caps, minimum: minimum, maximum: maximum)
        return Allocation(bitrate: rates.first ?? clamp(caps.min()!, minimum, maximum),
                          secondBitrate: best.contains(true) ? rates.second : nil, second: best)
    }

    /// The encodes' bitrates for a split: the second's the weakest budget among its
    /// receivers, the first's the lowest cap (budget over base share) among its own.
    private func bitrates(_ second: [Bool], budgets: [Int], caps: [Int], minimum: Int, maximum: Int) -> (first: Int?, second: Int?) {
        var first: Int?, other: Int?
        for receiver in budgets.indices {
            if second[receiver] {
                other = min(other ?? budgets[receiver], budgets[receiver])
            } else {
                first = min(first ?? caps[receiver], caps[receiver])
            }
        }
        return (first.map { clamp($0, minimum, maximum) }, other.map { clamp($0, minimum, maximum) })
    }

    /// The product of what each receiver gets as a share of `maximum` (on the first encode,
    /// its rate or, with layers, the budget below it; the exponential of
    /// the sum of logarithms, which keeps the module free of libm), divided by the second
    /// encode's cost per receiver; zero for a split that leaves nobody on the first encode
    /// or puts the stronger receivers on the second (which is for weak links; with
    /// receivers that may not move, such a split can look best).
    /// Shares are at least minimum/maximum, so a hundred receivers stay far from underflow.
    private func score(_ second: [Bool], budgets: [Int], caps: [Int], minimum: Int, maximum: Int) -> Double {
        let rates = bitrates(second, budgets: budgets, caps: caps, minimum: minimum, maximum: maximum)
        guard let first = rates.first, (rates.second ?? 0) <= first else { return 0 }
        var product = 1.0
        for receiver in second.indices {
            let gets = second[receiver] ? rates.second! : min(first, clamp(budgets[receiver], minimum, maximum))
            product *= Double(gets) / Double(max(maximum, 1))
        }
        if rates.second != nil { product /= power(configuration.secondEncodeCost, second.count) }
        return product
    }

    private func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0 ..< exponent { result *= base }
        return result
    }

    private func clamp(_ value: Int, _ low: Int, _ high: Int) -> Int { min(max(value, low), high) }
}
