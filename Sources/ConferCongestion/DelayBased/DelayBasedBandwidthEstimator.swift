public import ConferMedia

/// The delay-based half of GCC (libwebrtc's `DelayBasedBwe`): acknowledged packets go
/// through ``InterArrival`` grouping and the ``TrendlineEstimator``; the verdict drives
/// the ``AIMDRateController``.
///
/// While overusing, the rate is cut to β × acknowledged throughput at most once per RTT;
/// before any throughput is known it is halved instead, every 200 ms at most. A probe
/// result, when not overusing, replaces the estimate outright.
public struct DelayBasedBandwidthEstimator: Sendable {
    /// What one batch of feedback did to the estimate.
    public struct Result: Hashable, Sendable {
        /// The estimate after the batch.
        public var bitrate: DataRate
        /// Whether a probe result set it.
        public var fromProbe: Bool
        /// Whether the detector went from underusing back to normal in this batch.
        public var recoveredFromOveruse: Bool
    }

    /// Without feedback for this long, the grouping and trend restart.
    static let streamTimeout = TimeDelta.seconds(2)

    /// The inter-arrival grouping.
    public private(set) var interArrival = InterArrival()
    /// The delay trend detector.
    public private(set) var trendline: TrendlineEstimator
    /// The rate controller.
    public private(set) var rateControl: AIMDRateController
    private var lastSeenPacket: Timestamp?

    /// How much one-way delay varies from one send group to the next
    /// (``TrendlineEstimator/delayVariation``). A probe burst much shorter than this
    /// measures the jitter instead of the path.
    public var delayVariation: TimeDelta { TimeDelta(microseconds: Int64((trendline.delayVariation * 1000).rounded())) }

    /// An estimator starting at `startBitrate`, tuned by `trendline`.
    public init(
        startBitrate: DataRate, minimumBitrate: DataRate = .kilobitsPerSecond(5),
        maximumBitrate: DataRate = .megabitsPerSecond(30),
        trendline: TrendlineEstimator.Configuration = .init()
    ) {
        self.trendline = TrendlineEstimator(configuration: trendline)
        rateControl = AIMDRateController(startBitrate: startBitrate, minimumBitrate: minimumBitrate,
                                         maximumBitrate: maximumBitrate)
    }

    /// The current estimate.
    public var bitrate: DataRate { rateControl.bitrate }
    /// The detector's current verdict.
    public var usage: BandwidthUsage { trendline.state }

    /// The round-trip time the rate controller paces itself by.
    public var roundTripTime: TimeDelta {
        get { rateControl.roundTripTime }
        set { rateControl.roundTripTime = newValue }
    }

    /// Feeds one batch of acknowledged packets, sorted by receive time, that arrived at
    /// `now`, with the acknowledged throughput and any probe result, and returns the
    /// updated estimate (nil for an empty batch).
    public mutating func update(
        _ packets: [PacketFeedback], acknowledgedBitrate: DataRate?, probeBitrate: DataRate?, at now: Timestamp
    ) -> Result? {
        guard !packets.isEmpty else { return nil }
        var recovered = false
        for packet in packets {
            let before = trendline.state
            add(packet, at: now)
            if before == .underusing, trendline.state == .normal { recovered = true }
        }
        return updateEstimate(acknowledgedBitrate: acknowledgedBitrate, probeBitrate: probeBitrate,
                              recovered: recovered, at: now)
    }

    private mutating func add(_ packet: PacketFeedback, at now: Timestamp) {
        if let lastSeenPacket, now - lastSeenPacket > Self.streamTimeout {
            interArrival.reset()
            trendline = TrendlineEstimator(configuration: trendline.configuration)
        }
        lastSeenPacket = now
        if let deltas = interArrival.add(sendTime: packet.sendTime, arrivalTime: packet.receiveTime,
                                         size: packet.size, at: now) {
            trendline.update(arrivalDelta: deltas.arrivalDelta, sendDelta: deltas.sendDelta,
                             arrivalTime: packet.receiveTime)
        }
    }

    private mutating func updateEstimate(
        acknowledgedBitrate: DataRate?, probeBitrate: DataRate?, recovered: Bool, at now: Timestamp
    ) -> Result {
        var fromProbe = false
        if trendline.state == .overusing {
            if let acknowledgedBitrate {
                if rateControl.isTimeToReduceFurther(at: now, throughput: acknowledgedBitrate) {
                    rateControl.update(usage: .overusing, acknowledgedBitrate: acknowledgedBitrate, at: now)
                }
            } else if rateControl.isTimeForInitialReduction(at: now) {
                // Overusing before any throughput is measured: halve, and again each RTT.
                rateControl.setEstimate(rateControl.bitrate * 0.5, at: now)
            }
        } else if let probeBitrate {
            rateControl.setEstimate(probeBitrate, at: now)
            fromProbe = true
        } else {
            rateControl.update(usage: trendline.state, acknowledgedBitrate: acknowledgedBitrate, at: now)
        }
        return Result(bitrate: rateControl.bitrate, fromProbe: fromProbe, recoveredFromOveruse: recovered)
    }
}
