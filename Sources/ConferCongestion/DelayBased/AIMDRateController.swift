public import ConferMedia

/// Turns the delay detector's verdicts into a bitrate (draft-ietf-rmcat-gcc-02 §5.5;
/// libwebrtc's `AimdRateControl`).
///
/// - ``BandwidthUsage/normal`` → increase. Far from any known capacity the rate grows
///   multiplicatively, 8 % per second; once an overuse has taught it the link capacity
///   it grows additively, about one packet per response time (2 × (RTT + 100 ms)), so it
///   approaches the bottleneck gently. Either way it never exceeds 1.5 × the acknowledged
///   throughput + 10 kbit/s, so an idle encoder cannot inflate the estimate.
/// - ``BandwidthUsage/overusing`` → decrease to β = 0.85 × the acknowledged throughput
///   (what actually got through, so the queue drains), then hold.
/// - ``BandwidthUsage/underusing`` → hold while the queues drain.
///
/// Always within ``minimumBitrate`` … ``maximumBitrate``.
public struct AIMDRateController: Sendable {
    /// What the controller is doing to the rate.
    public enum State: String, Hashable, Sendable, Codable {
        /// Keeping the rate.
        case hold
        /// Raising the rate on each update.
        case increase
        /// About to cut the rate (it returns to hold once it has).
        case decrease
    }

    /// The multiplicative back-off applied to the acknowledged throughput on overuse.
    public let beta: Double
    /// The lowest rate the controller will produce.
    public let minimumBitrate: DataRate
    /// The highest rate the controller will produce.
    public let maximumBitrate: DataRate
    /// The current estimate.
    public private(set) var bitrate: DataRate
    /// The current state.
    public private(set) var state = State.hold
    /// The round-trip time, which paces reductions and the additive increase.
    public var roundTripTime = TimeDelta.milliseconds(200)

    private var linkCapacity = LinkCapacityEstimator()
    private var latestThroughput: DataRate
    private var lastChange: Timestamp?
    private var lastDecrease: Timestamp?

    /// A controller starting at `startBitrate`.
    public init(
        startBitrate: DataRate, minimumBitrate: DataRate = .kilobitsPerSecond(5),
        maximumBitrate: DataRate = .megabitsPerSecond(30), beta: Double = 0.85
    ) {
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = max(maximumBitrate, minimumBitrate)
        self.beta = beta
        bitrate = min(max(startBitrate, minimumBitrate), self.maximumBitrate)
        latestThroughput = bitrate
    }

    /// The link capacity learned from overuses, or nil while none is trusted.
    public var linkCapacityEstimate: DataRate? { linkCapacity.estimate }

    /// Applies the detector's verdict `usage` at `now`, given the acknowledged throughput
    /// (nil when it is not yet known), and returns the new estimate.
    @discardableResult
    public mutating func update(usage: BandwidthUsage, acknowledgedBitrate: DataRate?, at now: Timestamp) -> DataRate {
        let throughput = acknowledgedBitrate ?? latestThroughput
        if let acknowledgedBitrate { latestThroughput = acknowledgedBitrate }

        switch usage {
        case .normal:
            if state == .hold {
                lastChange = now
                state = .increase
            }
        case .overusing:
            state = .decrease
        case .underusing:
            state = .hold
        }

        var newBitrate = bitrate
        switch state {
        case .hold:
            break
        case .increase:
            if throughput > linkCapacity.upperBound { linkCapacity.reset() }
            // Allow some lag at low rates so an uneven encoder does not get stuck.
            let throughputLimit = throughput * 1.5 + .kilobitsPerSecond(10)
            if bitrate < throughputLimit {
                let increase = linkCapacity.estimate == nil
                    ? multiplicativeIncrease(at: now) : additiveIncrease(at: now)
                newBitrate = min(bitrate + increase, throughputLimit)
            }
            lastChange = now
        case .decrease:
            // Slightly below what got through, to drain the queue this overuse built.
            var decreased = throughput * beta
            if decreased > bitrate, let capacity = linkCapacity.estimate {
                decreased = capacity * beta
            }
            if decreased < bitrate { newBitrate = decreased }
            if throughput < linkCapacity.lowerBound {
                // Far from the learned capacity: the path changed, so learn it afresh.
                linkCapacity.reset()
            }
            linkCapacity.onOveruseDetected(throughput: throughput)
            state = .hold  // until the queues have drained
            lastChange = now
            lastDecrease = now
        }
        bitrate = clamp(newBitrate)
        return bitrate
    }

    /// Sets the estimate outright (a probe measured the path) at `now`.
    public mutating func setEstimate(_ newBitrate: DataRate, at now: Timestamp) {
        let previous = bitrate
        bitrate = clamp(newBitrate)
        lastChange = now
        if bitrate < previous { lastDecrease = now }
    }

    /// Whether another reduction is due at `now` while overusing with acknowledged
    /// throughput `throughput`: once per RTT (10–200 ms), or at once if the throughput
    /// has fallen below half the estimate.
    public func isTimeToReduceFurther(at now: Timestamp, throughput: DataRate) -> Bool {
        let interval = min(max(roundTripTime, .milliseconds(10)), .milliseconds(200))
        if let lastChange, now - lastChange < interval {
            return throughput < bitrate * 0.5
        }
        return true
    }

    /// Whether halving is due at `now` when overusing before any throughput is known.
    public func isTimeForInitialReduction(at now: Timestamp) -> Bool {
        isTimeToReduceFurther(at: now, throughput: bitrate * 0.5 - .bitsPerSecond(1))
    }

    /// The additive increase rate: one average packet per response time.
    public var nearMaxIncreaseRate: DataRate {
        let frameBits = Double(bitrate.bitsPerSecond) / 30
        let packetBits = 1200.0 * 8
        let packetsPerFrame = max((frameBits / packetBits).rounded(.up), 1)
        let averagePacketBits = frameBits / packetsPerFrame
        // The detector needs roughly 100 ms on top of the RTT to react; doubled as
        // libwebrtc does with its adaptive threshold.
        let rtt = max(Double(roundTripTime.microseconds) / 1_000_000, 0)
        let responseTime = 2 * (rtt + 0.1)
        return .bitsPerSecond(Int64(max(4000, averagePacketBits / responseTime)))
    }

    private func multiplicativeIncrease(at now: Timestamp) -> DataRate {
        var alpha = 1.08
        if let lastChange {
            alpha = Math.power(alpha, min(max((now - lastChange).seconds, 0), 1))
        }
        return max(bitrate * (alpha - 1), .bitsPerSecond(1000))
    }

    private func additiveIncrease(at now: Timestamp) -> DataRate {
        guard let lastChange else { return .zero }
        return nearMaxIncreaseRate * max((now - lastChange).seconds, 0)
    }

    private func clamp(_ rate: DataRate) -> DataRate { min(max(rate, minimumBitrate), maximumBitrate) }
}
