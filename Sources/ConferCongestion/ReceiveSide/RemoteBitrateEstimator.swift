public import ConferMedia
public import ConferRTP

/// The receiver's side of GCC for peers that want REMB instead of transport-cc
/// (libwebrtc's `RemoteBitrateEstimatorAbsSendTime`, with the trendline detector in place
/// of its Kalman filter).
///
/// Each packet's abs-send-time (24-bit, 64 s wrap) is unwrapped to a send timeline; the
/// same ``InterArrival`` grouping and ``TrendlineEstimator`` as the sender's find the
/// delay trend, and an ``AIMDRateController`` fed with the received bitrate (1 s window)
/// turns it into the estimate. As libwebrtc does, the estimate starts from what has been
/// received over the first five seconds (sooner if overuse is seen) and is updated at
/// once while overusing, otherwise at the RTCP-budget interval (200 ms – 1 s).
/// ``rembToSend(at:)`` says when to send a REMB: at once on a drop of 3 % or more, else
/// every 200 ms.
public struct RemoteBitrateEstimator: Sendable {
    static let initializationTime = TimeDelta.seconds(5)
    static let rembInterval = TimeDelta.milliseconds(200)
    static let rembDecreaseRatio = 0.97
    static let streamTimeout = TimeDelta.seconds(2)

    private var interArrival = InterArrival()
    /// The delay trend detector.
    public private(set) var trendline = TrendlineEstimator()
    private var rateControl: AIMDRateController
    private var incoming = IncomingBitrate()
    private var lastRawSendTime: UInt32?
    private var sendTicks: Int64 = 0
    private var firstIncomingRate: Timestamp?
    private var lastUpdate: Timestamp?
    private var lastArrival: Timestamp?
    private var lastREMB: (rate: DataRate, time: Timestamp)?

    /// Whether ``estimate`` is meaningful yet.
    public private(set) var hasEstimate = false

    /// An estimator bounded by `minimumBitrate` … `maximumBitrate`.
    public init(minimumBitrate: DataRate = .kilobitsPerSecond(30), maximumBitrate: DataRate = .megabitsPerSecond(20)) {
        rateControl = AIMDRateController(startBitrate: minimumBitrate, minimumBitrate: minimumBitrate,
                                         maximumBitrate: maximumBitrate)
    }

    /// The estimate, or nil before the first one.
    public var estimate: DataRate? { hasEstimate ? rateControl.bitrate : nil }
    /// The detector's verdict.
    public var usage: BandwidthUsage { trendline.state }

    /// The round-trip time, which paces reductions (the receiver learns it from its own
    /// RTCP exchange).
    public var roundTripTime: TimeDelta {
        get { rateControl.roundTripTime }
        set { rateControl.roundTripTime = newValue }
    }

    /// Adds a packet of `size` bytes carrying `sendTime`, which arrived at `arrival`.
    public mutating func onPacketReceived(sendTime: RTPAbsoluteSendTime, size: Int, at arrival: Timestamp) {
        if let lastArrival, arrival - lastArrival > Self.streamTimeout {
            interArrival.reset()
            trendline = TrendlineEstimator(configuration: trendline.configuration)
        }
        lastArrival = arrival
        incoming.add(size, at: arrival)
        let send = unwrap(sendTime)
        if let deltas = interArrival.add(sendTime: send, arrivalTime: arrival, size: size, at: arrival) {
            trendline.update(arrivalDelta: deltas.arrivalDelta, sendDelta: deltas.sendDelta, arrivalTime: arrival)
        }
        updateEstimate(at: arrival)
    }

    /// The bitrate to send in a REMB now, or nil when none is due.
    public mutating func rembToSend(at now: Timestamp) -> DataRate? {
        guard let estimate else { return nil }
        if let lastREMB, now - lastREMB.time < Self.rembInterval,
           estimate >= lastREMB.rate * Self.rembDecreaseRatio {
            return nil
        }
        lastREMB = (estimate, now)
        return estimate
    }

    private mutating func updateEstimate(at now: Timestamp) {
        guard let throughput = incoming.rate(at: now) else { return }
        let first = firstIncomingRate ?? now
        firstIncomingRate = first
        if !hasEstimate {
            guard trendline.state == .overusing || now - first >= Self.initializationTime else { return }
            // Start from what actually arrives; an overuse then cuts below it.
            rateControl.setEstimate(throughput, at: now)
            hasEstimate = true
        }
        let due: Bool
        if trendline.state == .overusing {
            due = rateControl.isTimeToReduceFurther(at: now, throughput: throughput)
        } else {
            due = lastUpdate.map { now - $0 > feedbackInterval } ?? true
        }
        guard due else { return }
        rateControl.update(usage: trendline.state, acknowledgedBitrate: throughput, at: now)
        lastUpdate = now
    }

    /// How often an 80-byte REMB fits in 5 % of the estimate, within 200 ms – 1 s.
    private var feedbackInterval: TimeDelta {
        let budget = rateControl.bitrate * 0.05
        let interval = budget.duration(ofBytes: 80) ?? .seconds(1)
        return min(max(interval, .milliseconds(200)), .seconds(1))
    }

    /// The abs-send-time on a continuous timeline: the 24-bit difference from the last
    /// value, signed, accumulated in 1/2^18 s ticks.
    private mutating func unwrap(_ sendTime: RTPAbsoluteSendTime) -> Timestamp {
        if let last = lastRawSendTime {
            let delta = Int32(bitPattern: (sendTime.rawValue &- last) << 8) >> 8
            sendTicks += Int64(delta)
        } else {
            sendTicks = Int64(sendTime.rawValue)
        }
        lastRawSendTime = sendTime.rawValue
        return Timestamp(microseconds: (sendTicks * 1_000_000 + (1 << 17)) >> 18)
    }

    var storageFingerprint: [Int] { trendline.storageFingerprint + incoming.storageFingerprint }
}
