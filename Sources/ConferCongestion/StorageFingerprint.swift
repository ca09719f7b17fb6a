/// Identity of the buffers each estimator owns (address and capacity), so tests can check
/// that steady-state updates reuse them instead of allocating: a buffer that grew or was
/// copied on write shows up as a changed fingerprint. Counting mallocs directly would need
/// an interposer, which a test process shared with other suites cannot use.
func fingerprint<Element>(_ array: [Element]) -> [Int] {
    array.withUnsafeBufferPointer { [Int(bitPattern: $0.baseAddress), array.capacity] }
}

extension SentPacketHistory {
    var storageFingerprint: [Int] { slotsFingerprint }
}

extension TrendlineEstimator {
    var storageFingerprint: [Int] { windowFingerprint }
}

extension SendSideBandwidthEstimator {
    /// Every buffer the estimator and its parts own.
    var storageFingerprint: [Int] {
        history.storageFingerprint + fingerprint(feedback) + fingerprint(feedbackRTTs)
            + delayBased.trendline.storageFingerprint + lossBased.storageFingerprint
            + probes.storageFingerprint + probeEstimator.storageFingerprint
    }
}
