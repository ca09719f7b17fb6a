public import ConferMedia

/// Detects a growing queue from the trend of one-way delay variation
/// (draft-ietf-rmcat-gcc-02 §5.3–5.4 with libwebrtc's trendline filter in place of the
/// draft's Kalman filter).
///
/// Each group delta `d = arrivalDelta − sendDelta` is accumulated into a delay curve,
/// smoothed exponentially, and a least-squares line is fitted through the last
/// ``Configuration/windowSize`` points (x: arrival time, y: smoothed delay). The slope
/// estimates (send rate − capacity) / capacity. Scaled by the number of samples (up to
/// 60) and a gain, it is compared with an adaptive threshold γ: above γ for more than
/// 10 ms and still rising means ``BandwidthUsage/overusing``; below −γ means
/// ``BandwidthUsage/underusing``. γ follows |trend| slowly upwards (k_up) and quickly
/// downwards (k_down) so the detector neither starves against concurrent TCP nor fires on
/// jitter, and ignores spikes beyond γ + 15 (a sudden capacity drop).
///
/// **Jitter floor.** That adaptation alone does not keep γ above trendless jitter: with
/// k_down four times k_up, γ settles where the trend's spikes still cross it now and
/// then, and on a path whose delay varies by 10–20 ms between packet groups each crossing
/// is a false overuse that cuts the rate to 85 % of the acknowledged throughput. So γ never
/// goes below ``Configuration/jitterFloorGain`` × the path's delay variation (the smoothed
/// mean deviation of the group deltas, ``delayVariation``, in ms). On a clean path the variation is a few
/// ms and the floor lies under libwebrtc's 6; under 30 ms of jitter it is about 14, above
/// the trend's jitter spikes but below what a queue growing at a tenth of the link's
/// rate produces (about 24).
///
/// The window is a fixed ring: updating never allocates.
public struct TrendlineEstimator: Sendable {
    /// Tuning; the defaults are libwebrtc's.
    public struct Configuration: Hashable, Sendable, Codable {
        /// Points in the regression window.
        public var windowSize = 20
        /// Weight of the previous smoothed delay in the exponential filter.
        public var smoothing = 0.9
        /// Gain applied to the slope before comparing it with the threshold.
        public var thresholdGain = 4.0
        /// Threshold adaptation rate while |trend| exceeds it, per ms.
        public var thresholdUpRate = 0.0087
        /// Threshold adaptation rate while |trend| is below it, per ms.
        public var thresholdDownRate = 0.039
        /// The threshold before any adaptation.
        public var initialThreshold = 12.5
        /// How long (ms) the trend must stay above the threshold before overuse is declared.
        public var overusingTimeThreshold = 10.0
        /// The threshold never falls below this × the delay variation in ms (0: no floor, as libwebrtc).
        public var jitterFloorGain = 0.75

        /// libwebrtc's tuning.
        public init() {}
    }

    static let maxAdaptOffset = 15.0
    static let minNumberOfDeltas = 60
    static let deltaCounterMax = 1000
    static let thresholdRange = 6.0 ... 600.0
    static let maxThresholdTimeDelta = 100.0

    /// The tuning in use.
    public let configuration: Configuration
    /// The current conclusion.
    public private(set) var state = BandwidthUsage.normal
    /// The adaptive threshold γ the modified trend is compared with.
    public private(set) var threshold: Double
    /// The last slope of the regression line (ms of delay per ms of arrival time).
    public private(set) var trend = 0.0
    /// The slope scaled by sample count and gain: what is compared with ``threshold``.
    public private(set) var modifiedTrend = 0.0
    /// How much one-way delay varies from one group to the next: the mean absolute
    /// deviation of the group delta `arrivalDelta − sendDelta` from its recent mean, in ms,
    /// both smoothed over about 16 groups as RFC 3550 smooths interarrival jitter. Zero
    /// before the first delta.
    public private(set) var delayVariation = 0.0
    private var meanDelta = 0.0

    private var deltaCount = 0
    private var firstArrival: Timestamp?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    private var xs: [Double]
    private var ys: [Double]
    private var head = 0
    private var count = 0
    private var lastThresholdUpdate: Double?
    private var overusingTime = -1.0
    private var overuseCounter = 0
    private var lastDetectedTrend = 0.0

    /// A detector with `configuration` (window at least 2 points).
    public init(configuration: Configuration = Configuration()) {
        var configuration = configuration
        configuration.windowSize = max(configuration.windowSize, 2)
        self.configuration = configuration
        threshold = configuration.initialThreshold
        xs = [Double](repeating: 0, count: configuration.windowSize)
        ys = xs
    }

    /// Adds one group delta: the newer group arrived `arrivalDelta` after the older one
    /// but was sent `sendDelta` after it; the newer group's last packet arrived at
    /// `arrivalTime`. Returns the resulting state.
    @discardableResult
    public mutating func update(arrivalDelta: TimeDelta, sendDelta: TimeDelta, arrivalTime: Timestamp) -> BandwidthUsage {
        let sendDeltaMs = Double(sendDelta.microseconds) / 1000
        let delta = Double(arrivalDelta.microseconds) / 1000 - sendDeltaMs
        deltaCount = min(deltaCount + 1, Self.deltaCounterMax)
        // Variation around the recent mean delta: a queue that grows or drains moves every
        // delta the same way, which is a trend, not jitter.
        meanDelta += (delta - meanDelta) / 16
        delayVariation += (abs(delta - meanDelta) - delayVariation) / 16
        let first = firstArrival ?? arrivalTime
        firstArrival = first
        let x = Double((arrivalTime - first).microseconds) / 1000

        accumulatedDelay += delta
        smoothedDelay = configuration.smoothing * smoothedDelay + (1 - configuration.smoothing) * accumulatedDelay
        append(x: x, y: smoothedDelay)
        if count == xs.count, let slope = fittedSlope() { trend = slope }
        detect(sendDeltaMs: sendDeltaMs, now: x)
        return state
    }

    var windowFingerprint: [Int] { fingerprint(xs) + fingerprint(ys) }

    private mutating func append(x: Double, y: Double) {
        xs[head] = x
        ys[head] = y
        head = head + 1 == xs.count ? 0 : head + 1
        count = min(count + 1, xs.count)
    }

    /// Least-squares slope through the window, or nil when every x is the same.
    private func fittedSlope() -> Double? {
        var sumX = 0.0
        var sumY = 0.0
        for i in 0 ..< count {
            sumX += xs[i]
            sumY += ys[i]
        }
        let meanX = sumX / Double(count)
        let meanY = sumY / Double(count)
        var numerator = 0.0
        var denominator = 0.0
        for i in 0 ..< count {
            let dx = xs[i] - meanX
            numerator += dx * (ys[i] - meanY)
            denominator += dx * dx
        }
        return denominator == 0 ? nil : numerator / denominator
    }

    private mutating func detect(sendDeltaMs: Double, now: Double) {
        guard deltaCount >= 2 else {
            state = .normal
            return
        }
        let previousTrend = lastDetectedTrend
        modifiedTrend = Double(min(deltaCount, Self.minNumberOfDeltas)) * trend * configuration.thresholdGain
        if modifiedTrend > threshold {
            // Assume the overuse began halfway through the interval before this sample.
            overusingTime = overusingTime < 0 ? sendDeltaMs / 2 : overusingTime + sendDeltaMs
            overuseCounter += 1
            if overusingTime > configuration.overusingTimeThreshold, overuseCounter > 1, trend >= previousTrend {
                overusingTime = 0
                overuseCounter = 0
                state = .overusing
            }
        } else if modifiedTrend < -threshold {
            overusingTime = -1
            overuseCounter = 0
            state = .underusing
        } else {
            overusingTime = -1
            overuseCounter = 0
            state = .normal
        }
        lastDetectedTrend = trend
        updateThreshold(now: now)
    }

    private mutating func updateThreshold(now: Double) {
        let last = lastThresholdUpdate ?? now
        lastThresholdUpdate = now
        let magnitude = abs(modifiedTrend)
        // A sudden capacity drop is not the noise level: do not let it raise γ.
        if magnitude > threshold + Self.maxAdaptOffset { return }
        let rate = magnitude < threshold ? configuration.thresholdDownRate : configuration.thresholdUpRate
        let elapsed = min(now - last, Self.maxThresholdTimeDelta)
        threshold += rate * (magnitude - threshold) * elapsed
        let floor = max(Self.thresholdRange.lowerBound, configuration.jitterFloorGain * delayVariation)
        threshold = min(max(threshold, floor), Self.thresholdRange.upperBound)
    }
}
