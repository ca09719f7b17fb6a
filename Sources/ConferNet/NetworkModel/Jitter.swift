public import ConferMedia

/// Random variation of a packet's delay around the mean delay: a distribution and its size.
///
/// Every distribution has (about) zero mean, so ``NetworkConditions/delay`` stays the mean
/// one-way delay whatever the jitter; the total delay is never negative.
///
/// | distribution | offset from the mean delay                         | p95 offset    |
/// |--------------|----------------------------------------------------|---------------|
/// | `uniform`    | uniform in −amount … +amount (netem's default)     | 0.9 × amount  |
/// | `normal`     | normal, deviation = amount, cut at ±3 deviations   | 1.64 × amount |
/// | `pareto`     | heavy tail: Lomax (shape 2.5, mean amount, cut at 20 × amount) minus amount | 2.47 × amount |
///
/// `pareto` models links that are mostly fast with rare long stalls (Wi-Fi retries, cellular
/// scheduling): most packets arrive up to `amount` early, a few very late.
public struct Jitter: Codable, Sendable, Equatable {
    /// The shape of the variation.
    public enum Distribution: String, Codable, Sendable, CaseIterable {
        /// Equally likely anywhere in ±amount.
        case uniform
        /// Bell-shaped with deviation amount, truncated at ±3 deviations.
        case normal
        /// Heavy-tailed: rare delays many times amount.
        case pareto
    }

    /// The shape of the variation.
    public var distribution: Distribution
    /// Its size: half-width (uniform), deviation (normal) or mean excess (pareto).
    public var amount: TimeDelta

    /// Variation of `distribution` with size `amount`.
    public init(_ distribution: Distribution, _ amount: TimeDelta) {
        self.distribution = distribution
        self.amount = amount
    }

    /// No variation.
    public static let none = Jitter(.uniform, .zero)

    /// Uniform in ±`amount`.
    public static func uniform(_ amount: TimeDelta) -> Jitter { Jitter(.uniform, amount) }
    /// Normal with deviation `amount`, truncated at ±3 deviations.
    public static func normal(_ amount: TimeDelta) -> Jitter { Jitter(.normal, amount) }
    /// Heavy-tailed with mean excess `amount`.
    public static func pareto(_ amount: TimeDelta) -> Jitter { Jitter(.pareto, amount) }

    /// Pareto type II (Lomax) shape: a finite mean and variance but a long tail.
    static let paretoShape = 2.5
    /// The pareto tail is cut here, in multiples of amount, so no packet is held for ever.
    static let paretoCap = 20.0

    /// One offset from the mean delay, in microseconds.
    func sample(using random: inout SeededRandom) -> Double {
        let a = Double(amount.microseconds)
        guard a > 0 else { return 0 }
        switch distribution {
        case .uniform:
            return (random.nextUnit() * 2 - 1) * a
        case .normal:
            // Rejection keeps the exact truncated shape; 99.7 % of draws pass the first time,
            // and the bound on tries keeps the cost fixed even for an unlucky stream.
            for _ in 0..<16 {
                let x = random.nextGaussian()
                if abs(x) <= 3 { return x * a }
            }
            return 0
        case .pareto:
            // Inverse-CDF of the Lomax distribution with scale chosen so its mean is `a`.
            let scale = a * (Jitter.paretoShape - 1)
            let u = 1 - random.nextUnit()  // in (0, 1], so the power is finite
            let excess = scale * (Math.power(u, -1 / Jitter.paretoShape) - 1)
            return min(excess, Jitter.paretoCap * a) - a
        }
    }
}
