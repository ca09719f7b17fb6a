/// The bottleneck capacity as learned from the throughput seen at each overuse, with its
/// spread (libwebrtc's `LinkCapacityEstimator`). While a capacity is known the rate
/// controller creeps towards it additively instead of probing multiplicatively.
struct LinkCapacityEstimator: Sendable {
    private(set) var estimateKbps: Double?
    private var deviationKbps = 0.4

    /// The estimate, or nil when none is trusted.
    var estimate: DataRate? { estimateKbps.map { .kilobitsPerSecond($0) } }

    /// Three deviations above the estimate (infinite when there is none).
    var upperBound: DataRate {
        guard let estimateKbps else { return DataRate(bitsPerSecond: .max) }
        return .kilobitsPerSecond(estimateKbps + 3 * deviation(estimateKbps))
    }

    /// Three deviations below the estimate (zero when there is none).
    var lowerBound: DataRate {
        guard let estimateKbps else { return .zero }
        return .kilobitsPerSecond(max(0, estimateKbps - 3 * deviation(estimateKbps)))
    }

    mutating func reset() { estimateKbps = nil }

    /// The throughput at an overuse is a capacity sample, trusted a little (α = 0.05).
    mutating func onOveruseDetected(throughput: DataRate) { update(sample: throughput, alpha: 0.05) }

    /// A probe measured the path directly, so it counts for much more (α = 0.5).
    mutating func onProbeRate(_ rate: DataRate) { update(sample: rate, alpha: 0.5) }

    private func deviation(_ estimate: Double) -> Double { (deviationKbps * estimate).squareRoot() }

    private mutating func update(sample: DataRate, alpha: Double) {
        let sampleKbps = sample.kilobitsPerSecond
        let estimate = estimateKbps.map { (1 - alpha) * $0 + alpha * sampleKbps } ?? sampleKbps
        estimateKbps = estimate
        // The variance is normalized by the estimate so it scales with the rate.
        let error = estimate - sampleKbps
        deviationKbps = (1 - alpha) * deviationKbps + alpha * error * error / max(estimate, 1)
        deviationKbps = min(max(deviationKbps, 0.4), 2.5)
    }
}
