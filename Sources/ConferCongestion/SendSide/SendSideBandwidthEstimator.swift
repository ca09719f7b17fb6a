public import ConferMedia
public import ConferRTP

/// The sender's bandwidth estimator: Google Congestion Control, send-side variant
/// (draft-ietf-rmcat-gcc-02 as libwebrtc's `goog_cc` implements it).
///
/// **Design.** Two controllers run side by side and the target is the smaller of them:
///
/// - *Delay-based* (needs transport-cc): every sent packet is recorded in a
///   ``SentPacketHistory``; each feedback message turns into per-packet send and receive
///   times. Packets are grouped into 5 ms send bursts (``InterArrival``); the growth of
///   one-way delay between groups is fitted by a 20-point ``TrendlineEstimator`` against
///   an adaptive threshold, giving overuse / normal / underuse; an
///   ``AIMDRateController`` raises the rate (8 %/s, or additively once the link capacity
///   is known), holds it, or cuts it to 0.85 × the ``AcknowledgedBitrateEstimator``'s
///   throughput.
/// - *Loss-based* (``LossBasedBandwidthEstimator``): below 2 % loss it grows 8 %/s,
///   between 2 and 10 % it holds, above 10 % it multiplies by (1 − loss/2). Loss comes
///   from transport-cc (pooled over 1 s) or, when no transport-cc feedback is flowing,
///   from receiver reports' fraction lost. It is capped by the delay-based estimate and by
///   the receiver's REMB, so `targetBitrate = min(delay-based, loss-based, REMB)`.
///
/// At start-up it asks for probe bursts at 3× and 6× the start rate (then 2× while
/// results keep up; see ``nextProbe(at:)``): the delay-based estimate jumps to what the
/// path delivered, so a call reaches the link rate in a second or two rather than
/// climbing at 8 %/s. Without transport-cc (REMB and receiver reports only) the target is
/// min(loss-based, REMB), the classic receive-side GCC split; ``RemoteBitrateEstimator``
/// is that receive side.
///
/// Left out from libwebrtc: the pacer (the caller spreads packets; send at the target,
/// probes at their cluster rate), application-limited-region detection, the congestion
/// window, RTT-based back-off and the feedback-timeout decay, and the newer loss-based v2.
///
/// All time is injected: every input carries the time it happened; nothing reads a clock
/// or does I/O. In steady state no input allocates.
public struct SendSideBandwidthEstimator: Sendable {
    /// Bounds and switches.
    public struct Configuration: Hashable, Sendable, Codable {
        /// The rate to start at.
        public var startBitrate = DataRate.kilobitsPerSecond(300)
        /// The target never goes below this.
        public var minimumBitrate = DataRate.kilobitsPerSecond(30)
        /// The target never goes above this (nor do probes).
        public var maximumBitrate = DataRate.megabitsPerSecond(20)
        /// Whether to ask for start-up probe bursts.
        public var probing = true
        /// Packets the send history remembers.
        public var historyCapacity = 4096
        /// How long transport-cc loss counts are pooled before the loss-based estimate
        /// sees them.
        public var lossUpdateInterval = TimeDelta.seconds(1)

        /// The defaults: start at 300 kbit/s, 30 kbit/s … 20 Mbit/s, probing on.
        public init() {}

        /// Defaults with the given start rate and bounds.
        public init(startBitrate: DataRate, minimumBitrate: DataRate = .kilobitsPerSecond(30),
                    maximumBitrate: DataRate = .megabitsPerSecond(20), probing: Bool = true) {
            self.startBitrate = startBitrate
            self.minimumBitrate = minimumBitrate
            self.maximumBitrate = maximumBitrate
            self.probing = probing
        }
    }

    /// Receiver-report RTTs older than this give way to transport-cc's.
    static let reportRTTLifetime = TimeDelta.seconds(5)
    /// Receiver-report loss is ignored while transport-cc feedback newer than this counts
    /// the same packets.
    static let transportFeedbackLifetime = TimeDelta.seconds(2)
    static let feedbackRTTWindow = 32
    static let maximumRTT = TimeDelta.seconds(60)
    /// How far below the acknowledged throughput a low probe result may take the estimate.
    static let probeDropThroughputFraction = 0.85

    /// The configuration in use.
    public let configuration: Configuration
    private(set) var history: SentPacketHistory
    private(set) var feedback: [PacketFeedback] = []
    private var acknowledged = AcknowledgedBitrateEstimator()
    private(set) var delayBased: DelayBasedBandwidthEstimator
    private(set) var lossBased: LossBasedBandwidthEstimator
    private(set) var probes: ProbeController
    private(set) var probeEstimator = ProbeBitrateEstimator()

    private(set) var feedbackRTTs: [Int64]
    private var feedbackRTTHead = 0
    private var feedbackRTTCount = 0
    private var feedbackRTTSum: Int64 = 0
    private var propagationRTT: TimeDelta?
    private var reportRTT: (value: TimeDelta, time: Timestamp)?
    private var lostSinceLossUpdate = 0
    /// Whether the delay-based detector saw overuse since the last loss update (that loss may be the queue's).
    private var overusedSinceLossUpdate = false
    /// Whether the delay detector said overuse and has not said normal since.
    private var isOverusing = false
    private var expectedSinceLossUpdate = 0
    private var nextLossUpdate: Timestamp?
    private var lastTransportFeedback: Timestamp?
    private var lastInput: Timestamp?

    private var packetsSent: Int64 = 0
    private var bytesSent: Int64 = 0
    private var feedbackMessages: Int64 = 0
    private var packetsAcknowledged: Int64 = 0
    private var packetsLost: Int64 = 0
    private var unknownFeedback: Int64 = 0
    private var probeResults: Int64 = 0

    /// An estimator with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        var configuration = configuration
        configuration.maximumBitrate = max(configuration.maximumBitrate, configuration.minimumBitrate)
        configuration.startBitrate = min(max(configuration.startBitrate, configuration.minimumBitrate),
                                         configuration.maximumBitrate)
        self.configuration = configuration
        history = SentPacketHistory(capacity: configuration.historyCapacity)
        feedback.reserveCapacity(1024)
        feedbackRTTs = [Int64](repeating: 0, count: Self.feedbackRTTWindow)
        delayBased = DelayBasedBandwidthEstimator(
            startBitrate: configuration.startBitrate, minimumBitrate: configuration.minimumBitrate,
            maximumBitrate: configuration.maximumBitrate)
        lossBased = LossBasedBandwidthEstimator(
            startBitrate: configuration.startBitrate, minimumBitrate: configuration.minimumBitrate,
            maximumBitrate: configuration.maximumBitrate)
        probes = ProbeController(enabled: configuration.probing, startBitrate: configuration.startBitrate,
                                 maximumBitrate: configuration.maximumBitrate)
    }

    /// The rate the encoder(s) and pacer should use now, in total for this transport.
    public var targetBitrate: DataRate { lossBased.bitrate }

    /// The delay detector's current verdict.
    public var usage: BandwidthUsage { delayBased.usage }
    /// How much the path's one-way delay varies between packet groups
    /// (``TrendlineEstimator/delayVariation``).
    public var delayVariation: TimeDelta { delayBased.delayVariation }

    // MARK: Inputs

    /// Records a packet of `size` bytes (the whole RTP packet) that left at `now` carrying
    /// transport-wide sequence number `transportSequenceNumber`, as part of probe cluster
    /// `probeClusterID` if it was sent for one.
    public mutating func onPacketSent(transportSequenceNumber: UInt16, size: Int, at now: Timestamp, probeClusterID: Int? = nil) {
        history.record(sequenceNumber: transportSequenceNumber, size: size, sendTime: now, probeClusterID: probeClusterID)
        packetsSent += 1
        bytesSent += Int64(max(size, 0))
        lastInput = now
    }

    /// The next probe burst to send at `now`, if any. Call it before sending media; the
    /// first call starts start-up probing. Send at least the cluster's packets and bytes
    /// spaced at its rate, passing its id to ``onPacketSent(transportSequenceNumber:size:at:probeClusterID:)``.
    public mutating func nextProbe(at now: Timestamp) -> ProbeCluster? {
        guard let cluster = probes.nextCluster(at: now) else { return nil }
        probeEstimator.register(cluster, at: now)
        return cluster
    }

    /// Asks for a probe burst at `bitrate` (capped at the maximum), as libwebrtc's
    /// `ProbeController` does when the sender wants to send more than the path has been
    /// shown to carry: a forwarder that gave a receiver fewer layers learns from it whether
    /// the receiver's path now carries more, which the receiver's app-limited feedback
    /// cannot say. Ignored when probing is off or a burst is already waiting.
    public mutating func requestProbe(at bitrate: DataRate, now: Timestamp) {
        probes.request(bitrate, at: now)
    }

    /// The loss the path shows without a queue, as the loss-based controller learned it (0…0.05).
    public var lossInherent: Double { lossBased.inherentLoss }

    /// Applies a transport-cc feedback message that arrived at `now`.
    public mutating func onTransportFeedback(_ message: RTCPTransportFeedback, at now: Timestamp) {
        lastInput = now
        feedbackMessages += 1
        feedback.removeAll(keepingCapacity: true)
        let counts = history.resolve(message, at: now, into: &feedback)
        packetsAcknowledged += Int64(counts.received)
        packetsLost += Int64(counts.lost)
        unknownFeedback += Int64(counts.unknown)
        guard counts.resolved > 0 || !feedback.isEmpty else { return }
        lastTransportFeedback = now
        sortByReceiveTime()
        updateRoundTripTimes(at: now)
        let estimateBefore = lossBased.bitrate

        lostSinceLossUpdate += counts.lost
        expectedSinceLossUpdate += counts.resolved
        if nextLossUpdate.map({ now >= $0 }) ?? true {
            nextLossUpdate = now + configuration.lossUpdateInterval
            lossBased.onPacketsLost(lostSinceLossUpdate, of: expectedSinceLossUpdate, at: now,
                                    delayWasSteady: !overusedSinceLossUpdate)
            lostSinceLossUpdate = 0
            expectedSinceLossUpdate = 0
            overusedSinceLossUpdate = false
        }

        acknowledged.update(feedback)
        var probeBitrate: DataRate?
        for packet in feedback where packet.probeClusterID != nil {
            if let result = probeEstimator.add(packet, delayVariation: delayBased.delayVariation) {
                probeBitrate = result
            }
        }
        if let result = probeBitrate {
            probeResults += 1
            // A burst that came back below the estimate takes it no lower than a little
            // under what the receiver acknowledges (libwebrtc's
            // `limit_probes_lower_than_throughput_estimate`): a single slow burst may be
            // jitter, and a real bottleneck shows in the delay trend too.
            if let acknowledged = acknowledged.bitrate {
                probeBitrate = max(result, min(delayBased.bitrate, acknowledged * Self.probeDropThroughputFraction))
            }
        }
        if let result = delayBased.update(feedback, acknowledgedBitrate: acknowledged.bitrate,
                                          probeBitrate: probeBitrate, at: now) {
            if result.fromProbe { lossBased.setBitrate(result.bitrate, at: now) }
            lossBased.setDelayBasedLimit(result.bitrate, at: now)
        }
        lossBased.update(at: now)
        if delayBased.usage == .overusing {
            probes.onOveruse(estimateBefore: estimateBefore, at: now)
            overusedSinceLossUpdate = true
            isOverusing = true
        }
        probes.delayVariation = delayBased.delayVariation
        probes.onEstimate(lossBased.bitrate, at: now)
        if isOverusing, delayBased.usage == .normal {
            isOverusing = false
            probes.onOveruseEnded(estimate: lossBased.bitrate, at: now)
        }
    }

    /// Applies a receiver report's view of this sender at `now`: the fraction lost
    /// (0…1) since its previous report, and the round-trip time it reveals, if any.
    ///
    /// The RTT is always used. The loss is used only while no transport-cc feedback is
    /// flowing, since that already counts the same packets one by one.
    public mutating func onReceiverReport(fractionLost: Double, rtt: TimeDelta?, at now: Timestamp) {
        lastInput = now
        if var rtt, rtt > .zero {
            // A report can say anything; nothing real takes a minute to go round.
            rtt = min(rtt, Self.maximumRTT)
            reportRTT = (rtt, now)
            delayBased.roundTripTime = rtt
            lossBased.roundTripTime = rtt
        }
        if let lastTransportFeedback, now - lastTransportFeedback < Self.transportFeedbackLifetime {
            lossBased.update(at: now)
        } else {
            lossBased.onFractionLost(fractionLost, at: now)
        }
        probes.onEstimate(lossBased.bitrate, at: now)
    }

    /// Applies a report block about this sender at `now` (its fraction-lost field is in
    /// 1/256 units), with the RTT computed from it, if any.
    public mutating func onReceiverReport(_ block: RTCPReportBlock, rtt: TimeDelta?, at now: Timestamp) {
        onReceiverReport(fractionLost: Double(block.fractionLost) / 256, rtt: rtt, at: now)
    }

    /// Applies the receiver's estimate (REMB) at `now`: the target never exceeds it. Zero
    /// removes the limit.
    public mutating func onREMB(bitrate: DataRate, at now: Timestamp) {
        lastInput = now
        lossBased.setReceiverLimit(bitrate, at: now)
        lossBased.update(at: now)
        probes.onEstimate(lossBased.bitrate, at: now)
    }

    /// Applies a REMB message at `now`.
    public mutating func onREMB(_ message: RTCPReceiverEstimatedMaxBitrate, at now: Timestamp) {
        onREMB(bitrate: DataRate(bitsPerSecond: Int64(clamping: message.bitrate)), at: now)
    }

    // MARK: Output

    /// The estimator's state and counters now.
    public var snapshot: BandwidthEstimatorSnapshot {
        let target = lossBased.bitrate
        let limit: BandwidthEstimatorSnapshot.Limit
        if target <= configuration.minimumBitrate {
            limit = .minimum
        } else if let remb = lossBased.receiverLimit, target >= remb {
            limit = .receiverEstimate
        } else if let delay = lossBased.delayBasedLimit, target >= delay {
            limit = .delayBased
        } else if target >= configuration.maximumBitrate {
            limit = .maximum
        } else {
            limit = .lossBased
        }
        return BandwidthEstimatorSnapshot(
            time: lastInput, targetBitrate: target, limitedBy: limit,
            delayBasedBitrate: lastTransportFeedback == nil ? nil : delayBased.bitrate,
            receiverEstimate: lossBased.receiverLimit, acknowledgedBitrate: acknowledged.bitrate,
            linkCapacity: delayBased.rateControl.linkCapacityEstimate, probeBitrate: probeEstimator.lastResult,
            usage: delayBased.usage, rateControlState: delayBased.rateControl.state,
            modifiedTrend: delayBased.trendline.modifiedTrend, threshold: delayBased.trendline.threshold,
            roundTripTime: reportRTT?.value ?? propagationRTT, lossFraction: lossBased.lossFraction,
            packetsSent: packetsSent, bytesSent: bytesSent, feedbackMessages: feedbackMessages,
            packetsAcknowledged: packetsAcknowledged, packetsLost: packetsLost, unknownFeedback: unknownFeedback,
            probeClusters: Int64(probes.clustersIssued), probeResults: probeResults)
    }

    // MARK: Internals

    /// Feedback is in sequence order; reordering on the path makes it slightly unsorted
    /// by arrival, which an insertion sort fixes in place in linear time.
    private mutating func sortByReceiveTime() {
        guard feedback.count > 1 else { return }
        for i in 1 ..< feedback.count {
            var j = i
            while j > 0, feedback[j].receiveTime < feedback[j - 1].receiveTime {
                feedback.swapAt(j, j - 1)
                j -= 1
            }
        }
    }

    /// RTT from transport-cc: the feedback's arrival minus each packet's send time, less
    /// the time the receiver held the packet before reporting (its arrival up to the
    /// batch's newest). The worst case per message, averaged over 32 messages, paces the
    /// rate controller; the best case is the propagation RTT the loss-based side uses.
    /// Receiver-report RTTs, when fresh, take precedence.
    private mutating func updateRoundTripTimes(at now: Timestamp) {
        guard let newest = feedback.last?.receiveTime else { return }
        var maxFeedbackRTT = TimeDelta(microseconds: .min)
        var minPropagationRTT = TimeDelta(microseconds: .max)
        for packet in feedback {
            let feedbackRTT = now - packet.sendTime
            maxFeedbackRTT = max(maxFeedbackRTT, feedbackRTT)
            minPropagationRTT = min(minPropagationRTT, feedbackRTT - (newest - packet.receiveTime))
        }
        if feedbackRTTCount == feedbackRTTs.count {
            feedbackRTTSum -= feedbackRTTs[feedbackRTTHead]
        } else {
            feedbackRTTCount += 1
        }
        feedbackRTTs[feedbackRTTHead] = maxFeedbackRTT.microseconds
        feedbackRTTSum += maxFeedbackRTT.microseconds
        feedbackRTTHead = (feedbackRTTHead + 1) % feedbackRTTs.count
        propagationRTT = max(minPropagationRTT, .zero)

        if let reportRTT, now - reportRTT.time < Self.reportRTTLifetime { return }
        reportRTT = nil
        // Clocks that run backwards (a caller's bug) must not yield a negative RTT.
        delayBased.roundTripTime = TimeDelta(microseconds: max(feedbackRTTSum / Int64(feedbackRTTCount), 0))
        lossBased.roundTripTime = propagationRTT ?? .zero
    }
}
