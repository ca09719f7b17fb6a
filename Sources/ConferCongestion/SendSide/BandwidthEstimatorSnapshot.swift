public import ConferMedia

/// A point-in-time view of a ``SendSideBandwidthEstimator``: every estimate, what limits
/// the target, the detector's state, RTT, loss and counters. Codable so the CLI can print
/// it as JSON.
public struct BandwidthEstimatorSnapshot: Hashable, Sendable, Codable {
    /// Which estimate the target currently equals.
    public enum Limit: String, Hashable, Sendable, Codable {
        /// The delay-based (transport-cc) estimate.
        case delayBased
        /// The loss-based estimate.
        case lossBased
        /// The receiver's REMB.
        case receiverEstimate
        /// The configured maximum.
        case maximum
        /// The configured minimum.
        case minimum
    }

    /// The time of the last input.
    public var time: Timestamp?
    /// The rate the sender should use: min(delay-based, loss-based, REMB) within the
    /// configured bounds.
    public var targetBitrate: DataRate
    /// What sets ``targetBitrate``.
    public var limitedBy: Limit
    /// The delay-based estimate, or nil before the first transport-cc feedback.
    public var delayBasedBitrate: DataRate?
    /// The receiver's REMB, if one has arrived.
    public var receiverEstimate: DataRate?
    /// The acknowledged throughput, or nil before the first full window.
    public var acknowledgedBitrate: DataRate?
    /// The link capacity the rate controller learned from overuses, if any.
    public var linkCapacity: DataRate?
    /// The last probe result, if any.
    public var probeBitrate: DataRate?
    /// The delay detector's verdict.
    public var usage: BandwidthUsage
    /// The rate controller's state.
    public var rateControlState: AIMDRateController.State
    /// The detector's modified trend and its adaptive threshold.
    public var modifiedTrend: Double
    /// The adaptive threshold γ.
    public var threshold: Double
    /// The round-trip time in use (receiver reports first, else transport-cc), if known.
    public var roundTripTime: TimeDelta?
    /// The loss fraction (0…1) of the last loss report.
    public var lossFraction: Double
    /// Packets recorded as sent.
    public var packetsSent: Int64
    /// Bytes recorded as sent.
    public var bytesSent: Int64
    /// Transport-cc messages processed.
    public var feedbackMessages: Int64
    /// Packets acknowledged as received.
    public var packetsAcknowledged: Int64
    /// Packets reported lost.
    public var packetsLost: Int64
    /// Reported numbers the history could not use (unknown, duplicate or forgotten).
    public var unknownFeedback: Int64
    /// Probe clusters handed out.
    public var probeClusters: Int64
    /// Probe clusters that produced a measurement.
    public var probeResults: Int64
}
