public import ConferMedia

/// The classic loss-based controller (draft-ietf-rmcat-gcc-02 §6; libwebrtc's
/// `SendSideBandwidthEstimation`), which also applies the other estimates as ceilings.
///
/// Loss fraction p, measured over at least 20 packets:
/// - p < 2 %: raise to 1.08 × the lowest rate of the last second (+1 kbit/s, so low rates
///   never stick) — about 8 % per second.
/// - 2 % ≤ p ≤ 10 %: hold.
/// - p > 10 %: multiply by (1 − p/2), at most once per 300 ms + RTT and once per report.
///
/// **Loss the path always has.** On a path with steady random loss (a radio link's 3 %)
/// classic GCC sits in the hold band for good: any cut (a probe that measured low under
/// jitter, a false overuse) is never won back. So the controller learns the loss it sees
/// while the delay-based detector finds no queue (reports marked `delayWasSteady`:
/// congestion loss comes with a queue, random loss without), as ``inherentLoss`` (the mean
/// of the first ten such reports, then a moving average, at most 5 %), and raises the rate
/// while the loss stays within 2 % of it: with 3 % inherent loss it raises below 5 %.
/// Loss above that still holds, and above 10 % still cuts whatever its cause (it costs
/// quality either way). Without delay information (receiver reports only, or a caller
/// that does not say) nothing is learned and the rule is the classic one. libwebrtc's
/// LossBasedBweV2 makes the same distinction with a likelihood model.
///
/// The result never exceeds the delay-based estimate, the receiver's REMB or the
/// configured maximum. During the first two seconds after the first report, while no
/// loss has been seen, it follows the delay-based estimate and REMB upwards, so probing
/// at start-up can lift it at once.
public struct LossBasedBandwidthEstimator: Sendable {
    static let increaseInterval = TimeDelta.milliseconds(1000)
    static let decreaseInterval = TimeDelta.milliseconds(300)
    static let startPhase = TimeDelta.milliseconds(2000)
    static let minimumPacketsPerReport = 20
    static let lowLossThreshold = 0.02
    static let highLossThreshold = 0.1
    /// Reports older than this no longer drive the rate (1.2 × libwebrtc's 5 s maximum
    /// RTCP interval).
    static let reportTimeout = TimeDelta.milliseconds(6000)

    /// The lowest rate the estimator will produce.
    public let minimumBitrate: DataRate
    /// The highest rate the estimator will produce.
    public let maximumBitrate: DataRate
    /// The current estimate (already capped by the delay-based estimate and REMB).
    public private(set) var bitrate: DataRate
    /// The loss fraction of the last report, 0…1 (in 1/256 steps, as RTCP carries it).
    public var lossFraction: Double { Double(lastFractionLoss) / 256 }
    /// The ceiling from delay-based estimation, if any.
    public private(set) var delayBasedLimit: DataRate?
    /// The ceiling from the receiver's REMB, if any.
    public private(set) var receiverLimit: DataRate?
    /// The round-trip time, which spaces decreases.
    public var roundTripTime = TimeDelta.zero

    private var lastFractionLoss = 0
    /// The loss the path shows whatever the rate, learned from reports without a queue.
    public private(set) var inherentLoss = 0.0
    private var steadyReports = 0
    /// The weight of a new report in ``inherentLoss`` after the first ten.
    static let inherentLossWeight = 0.1
    /// The most loss taken as the path's own: a path that loses more is held, as classically.
    static let maximumInherentLoss = 0.05
    private var lostSinceReport = 0
    private var expectedSinceReport = 0
    private var firstReport: Timestamp?
    private var lastLossReport: Timestamp?
    private var lastDecrease: Timestamp?
    private var decreasedSinceReport = false
    /// Ascending minima of the rate over the last second (a monotonic deque in a ring).
    private var history: [(time: Timestamp, rate: DataRate)]
    private var historyHead = 0
    private var historyCount = 0

    /// An estimator starting at `startBitrate`.
    public init(startBitrate: DataRate, minimumBitrate: DataRate = .kilobitsPerSecond(5),
                maximumBitrate: DataRate = .megabitsPerSecond(30)) {
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = max(maximumBitrate, minimumBitrate)
        bitrate = min(max(startBitrate, minimumBitrate), self.maximumBitrate)
        history = Array(repeating: (.zero, .zero), count: 64)
    }

    /// Reports that of `expected` packets, `lost` were lost (transport-cc or receiver
    /// report counts). Reports of fewer than 20 packets are pooled with the next ones.
    /// `delayWasSteady`: the delay-based detector found no queue over the report's packets,
    /// so their loss is the path's own (see ``inherentLoss``).
    public mutating func onPacketsLost(_ lost: Int, of expected: Int, at now: Timestamp, delayWasSteady: Bool = false) {
        if firstReport == nil { firstReport = now }
        guard expected > 0 else { return }
        let total = expectedSinceReport + expected
        let totalLost = lostSinceReport + max(lost, 0)
        if total < Self.minimumPacketsPerReport {
            expectedSinceReport = total
            lostSinceReport = totalLost
            return
        }
        lastFractionLoss = min(totalLost * 256 / total, 255)
        expectedSinceReport = 0
        lostSinceReport = 0
        if delayWasSteady {
            steadyReports += 1
            let learned = inherentLoss + (lossFraction - inherentLoss) * max(Self.inherentLossWeight, 1 / Double(steadyReports))
            inherentLoss = min(learned, Self.maximumInherentLoss)
        }
        noteReport(at: now)
    }

    /// Reports a loss fraction (0…1) computed by the receiver, as an RTCP report block's
    /// fraction-lost field carries it.
    public mutating func onFractionLost(_ fraction: Double, at now: Timestamp) {
        if firstReport == nil { firstReport = now }
        // NaN (a confused caller) counts as no loss rather than trapping.
        let clamped = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        lastFractionLoss = Int(clamped * 256).clamped(to: 0 ... 255)
        noteReport(at: now)
    }

    /// Sets the delay-based ceiling (nil: none) at `now`.
    public mutating func setDelayBasedLimit(_ limit: DataRate?, at now: Timestamp) {
        delayBasedLimit = limit
        applyLimits(at: now)
    }

    /// Sets the receiver's ceiling (REMB; nil or zero: none) at `now`.
    public mutating func setReceiverLimit(_ limit: DataRate?, at now: Timestamp) {
        receiverLimit = limit.flatMap { $0 > .zero ? $0 : nil }
        applyLimits(at: now)
    }

    /// Sets the estimate outright (a probe measured the path), dropping the delay-based
    /// ceiling until the delay-based estimator speaks again.
    public mutating func setBitrate(_ rate: DataRate, at now: Timestamp) {
        delayBasedLimit = nil
        setTarget(rate, at: now)
        historyCount = 0
    }

    /// Re-evaluates the estimate at `now` against the last loss report. Call after each
    /// feedback (or periodically): increases are relative to the last second's minimum,
    /// so how often this runs does not change the 8 %/s pace.
    public mutating func update(at now: Timestamp) {
        if lastFractionLoss == 0, isInStartPhase(at: now) {
            var candidate = bitrate
            if let receiverLimit { candidate = max(candidate, receiverLimit) }
            if let delayBasedLimit { candidate = max(candidate, delayBasedLimit) }
            if candidate != bitrate {
                historyCount = 0
                pushHistory(time: now, rate: bitrate)
                setTarget(candidate, at: now)
                return
            }
        }
        updateHistory(at: now)
        guard let lastLossReport, now - lastLossReport < Self.reportTimeout else {
            applyLimits(at: now)
            return
        }
        let loss = lossFraction
        var candidate = bitrate
        if loss <= Self.lowLossThreshold + inherentLoss {
            candidate = history[historyHead].rate * 1.08 + .kilobitsPerSecond(1)
        } else if loss > Self.highLossThreshold, !decreasedSinceReport,
                  lastDecrease.map({ now - $0 >= Self.decreaseInterval + roundTripTime }) ?? true {
            lastDecrease = now
            candidate = bitrate * (Double(512 - lastFractionLoss) / 512)
            decreasedSinceReport = true
        }
        setTarget(candidate, at: now)
    }

    var storageFingerprint: [Int] { fingerprint(history) }

    private func isInStartPhase(at now: Timestamp) -> Bool {
        guard let firstReport else { return true }
        return now - firstReport < Self.startPhase
    }

    private mutating func noteReport(at now: Timestamp) {
        decreasedSinceReport = false
        lastLossReport = now
        update(at: now)
    }

    private mutating func applyLimits(at now: Timestamp) { setTarget(bitrate, at: now) }

    private mutating func setTarget(_ rate: DataRate, at now: Timestamp) {
        var upper = maximumBitrate
        if let delayBasedLimit { upper = min(upper, delayBasedLimit) }
        if let receiverLimit { upper = min(upper, receiverLimit) }
        bitrate = max(min(rate, upper), minimumBitrate)
    }

    /// Keeps the minimum of the last second at the head: drop entries older than the
    /// increase interval, then every entry not below the current rate, then push it.
    private mutating func updateHistory(at now: Timestamp) {
        // A millisecond of slack lets the rate rise when the report is a hair early.
        while historyCount > 0, now - history[historyHead].time + .milliseconds(1) > Self.increaseInterval {
            historyHead = (historyHead + 1) % history.count
            historyCount -= 1
        }
        while historyCount > 0, bitrate <= history[(historyHead + historyCount - 1) % history.count].rate {
            historyCount -= 1
        }
        pushHistory(time: now, rate: bitrate)
    }

    private mutating func pushHistory(time: Timestamp, rate: DataRate) {
        if historyCount == history.count {
            // Full: the oldest entry is the one to lose (it would expire first anyway).
            historyHead = (historyHead + 1) % history.count
            historyCount -= 1
        }
        history[(historyHead + historyCount) % history.count] = (time, rate)
        historyCount += 1
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
