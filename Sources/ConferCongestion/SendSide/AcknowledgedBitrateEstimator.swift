public import ConferMedia

/// The throughput the receiver actually got, from the sizes and receive times of
/// acknowledged packets (libwebrtc's `AcknowledgedBitrateEstimator` over its Bayesian
/// `BitrateEstimator`).
///
/// Bytes are summed over fixed windows of receive time: 500 ms until the first estimate,
/// 150 ms after. Each window's rate is a sample; the estimate is a Gaussian posterior
/// whose sample variance grows with the sample's relative distance from the estimate
/// (scaled by 10), plus a constant process noise, so a lone outlier moves it little while
/// a sustained change moves it within a few windows.
public struct AcknowledgedBitrateEstimator: Sendable {
    static let initialWindow: Int64 = 500_000
    static let window: Int64 = 150_000
    static let uncertaintyScale = 10.0
    static let processNoise = 5.0
    static let fastChangeVariance = 200.0

    private var estimateKbps: Double?
    private var variance = 50.0
    private var previousTime: Int64?
    private var windowElapsed: Int64 = 0
    private var windowBytes = 0

    /// An estimator that has seen nothing.
    public init() {}

    /// The estimated throughput, or nil before the first full window.
    public var bitrate: DataRate? { estimateKbps.map { .kilobitsPerSecond($0) } }

    /// Adds acknowledged packets (any order within one feedback is fine if nearly sorted
    /// by receive time; a receive time going backwards restarts the window).
    public mutating func update(_ packets: [PacketFeedback]) {
        for packet in packets { update(receiveTime: packet.receiveTime, size: packet.size) }
    }

    /// Adds one acknowledged packet of `size` bytes that arrived at `receiveTime`.
    public mutating func update(receiveTime: Timestamp, size: Int) {
        let window = estimateKbps == nil ? Self.initialWindow : Self.window
        guard let sampleKbps = addToWindow(time: receiveTime.microseconds, bytes: size, window: window) else { return }
        guard let estimate = estimateKbps else {
            estimateKbps = sampleKbps
            return
        }
        let uncertainty = Self.uncertaintyScale * abs(estimate - sampleKbps) / max(estimate, 1e-3)
        let sampleVariance = uncertainty * uncertainty
        // The estimate may have drifted since the last sample.
        let predictedVariance = variance + Self.processNoise
        estimateKbps = (sampleVariance * estimate + predictedVariance * sampleKbps) / (sampleVariance + predictedVariance)
        variance = sampleVariance * predictedVariance / (sampleVariance + predictedVariance)
    }

    /// Tells the estimator the rate is about to change quickly (leaving an
    /// application-limited period), so samples move the estimate more.
    public mutating func expectFastRateChange() { variance += Self.fastChangeVariance }

    /// Adds bytes to the current window and returns the window's rate in kbit/s when it
    /// closes.
    private mutating func addToWindow(time: Int64, bytes: Int, window: Int64) -> Double? {
        if let previous = previousTime {
            if time < previous {
                windowElapsed = 0
                windowBytes = 0
            } else {
                let gap = time - previous
                windowElapsed += gap
                // A silence longer than a window says nothing about the rate: start over.
                if gap > window {
                    windowBytes = 0
                    windowElapsed %= window
                }
            }
        }
        previousTime = time
        var sample: Double?
        if windowElapsed >= window {
            sample = Double(windowBytes) * 8_000 / Double(window)
            windowElapsed -= window
            windowBytes = 0
        }
        windowBytes += bytes
        return sample
    }
}
