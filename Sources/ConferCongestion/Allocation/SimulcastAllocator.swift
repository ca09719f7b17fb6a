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
    public func allocate(budgets: [Int], current: [Bool], movable: [Bool], minimum: Int, maximum: Int) -> Allocation {
        let count = budgets.count
        guard count > 0, current.count == count, movable.count == count else {
            return Allocation(bitrate: clamp(budgets.min() ?? maximum, minimum, maximum), secondBitrate: nil,
                              second: Array(repeating: false, count: count))
        }
        let order = budgets.indices.sorted { (budgets[$0], $0) < (budgets[$1], $1) }
        var best = current
        var bestScore = score(current, budgets: budgets, minimum: minimum, maximum: maximum)
        let currentScore = bestScore
        // The k weakest movable receivers on the second encode, the others where they are:
        // each candidate is the previous one with the next weakest moved.
        var candidate = (0 ..< count).map { movable[$0] ? false : current[$0] }
        for weakest in 0 ..< count {
            if weakest > 0, movable[order[weakest - 1]] { candidate[order[weakest - 1]] = true }
            let value = score(candidate, budgets: budgets, minimum: minimum, maximum: maximum)
            if value > bestScore { (best, bestScore) = (candidate, value) }
        }
        if bestScore < currentScore * power(configuration.switchGain, count) { best = current }
        if score(best, budgets: budgets, minimum: minimum, maximum: maximum) == 0 {
            best = Array(repeating: false, count: count)
        }
        let rates = bitrates(best, budgets: budgets, minimum: minimum, maximum: maximum)
        return Allocation(bitrate: rates.first ?? clamp(budgets.min()!, minimum, maximum),
                          secondBitrate: best.contains(true) ? rates.second : nil, second: best)
    }

    /// The encodes' bitrates for a split: each the weakest budget among its receivers.
    private func bitrates(_ second: [Bool], budgets: [Int], minimum: Int, maximum: Int) -> (first: Int?, second: Int?) {
        var first: Int?, other: Int?
        for (budget, isSecond) in zip(budgets, second) {
            if isSecond { other = min(other ?? budget, budget) } else { first = min(first ?? budget, budget) }
        }
        return (first.map { clamp($0, minimum, maximum) }, other.map { clamp($0, minimum, maximum) })
    }

    /// The product of what each receiver gets as a share of `maximum` (the exponential of
    /// the sum of logarithms, which keeps the module free of libm), divided by the second
    /// encode's cost per receiver; zero for a split that leaves nobody on the first encode
    /// or puts the stronger receivers on the second (which is for weak links; with
    /// receivers that may not move, such a split can look best).
    /// Shares are at least minimum/maximum, so a hundred receivers stay far from underflow.
    private func score(_ second: [Bool], budgets: [Int], minimum: Int, maximum: Int) -> Double {
        let rates = bitrates(second, budgets: budgets, minimum: minimum, maximum: maximum)
        guard let first = rates.first, (rates.second ?? 0) <= first else { return 0 }
        var product = 1.0
        for isSecond in second { product *= Double(isSecond ? rates.second! : first) / Double(max(maximum, 1)) }
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
