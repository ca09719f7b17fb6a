import ConferMedia

/// A burst the sender should emit to measure the path: at least ``minimumPackets``
/// packets and ``minimumBytes`` bytes, spaced to leave at ``bitrate``, each recorded with
/// ``id`` as its probe cluster. Padding or retransmissions serve as well as media.
public struct ProbeCluster: Hashable, Sendable, Codable {
    /// Identifies the cluster's packets in the send history.
    public var id: Int
    /// The rate to send the burst at.
    public var bitrate: DataRate
    /// Packets the burst needs at least.
    public var minimumPackets: Int
    /// Bytes the burst needs at least.
    public var minimumBytes: Int

    /// A cluster with every field given.
    public init(id: Int, bitrate: DataRate, minimumPackets: Int, minimumBytes: Int) {
        self.id = id
        self.bitrate = bitrate
        self.minimumPackets = minimumPackets
        self.minimumBytes = minimumBytes
    }
}

/// Decides when to probe (libwebrtc's `ProbeController`, start-up part): at start, bursts
/// at 3× and 6× the start rate; then, while results keep arriving, another at 2× the
/// estimate each time the estimate exceeds 70 % of the last probe, until a second passes
/// without such a result or the maximum rate is reached. This is what lets GCC find a
/// link's capacity in a second or two instead of climbing at 8 % per second.
///
/// **Jitter.** A burst measures the path only if it lasts much longer than the path's
/// delay varies: on a path whose delay varies by 10 ms from one packet group to the next,
/// a 15 ms burst's receive span is mostly jitter, and queued packets behind a late one
/// make it look slow (or bunch it up so it says nothing). So each burst lasts
/// ``durationPerDelayVariation`` × the delay variation the delay-based side measured, from
/// 15 ms to ``maximumProbeDuration``. The start-up bursts leave before anything is measured;
/// when the path then shows more jitter than they were sized for, start-up probing runs
/// again from the current estimate with bursts long enough (at most ``maximumRetries``
/// times, and never once the path has shown a bottleneck), where libwebrtc would
/// otherwise climb at 8 % per second.
///
/// **After a large drop** (libwebrtc's `RequestProbe`, as its rapid-recovery experiment
/// runs it: not only in application-limited periods). When the delay detector calls an
/// overuse over (it is back to normal) and the estimate fell by more than a third since
/// the overuse began, the estimate before it is probed once at 85 %, at most every five
/// seconds. A cut at start-up is taken from an acknowledged rate that was the encoder's,
/// not the path's (the stream had not grown yet), and a queue that filled and drained on a
/// jittery path costs the same cut; without the probe, the estimate climbs back at 8 % per
/// second. A real bottleneck answers the probe at its own rate, so the estimate stays.
struct ProbeController: Sendable {
    static let initialScales = (3.0, 6.0)
    static let furtherScale = 2.0
    static let furtherThreshold = 0.7
    static let maxWaitForResult = TimeDelta.seconds(1)
    static let minimumProbeDuration = TimeDelta.milliseconds(15)
    static let maximumProbeDuration = TimeDelta.milliseconds(300)
    static let durationPerDelayVariation = 8.0
    static let minimumProbePackets = 5
    static let maximumRetries = 2
    /// How long after a round's first burst its results are taken to be in: a round trip
    /// and the burst itself on any path where probing helps.
    static let retryDelay = TimeDelta.milliseconds(400)
    /// A fall below this share of the estimate over one overuse is a large drop.
    static let largeDropThreshold = 0.66
    /// The share of the estimate before a large drop that is probed once it is over.
    static let afterDropFraction = 0.85
    /// How long an overuse may last and still be probed after (libwebrtc's drop timeout).
    static let afterDropTimeout = TimeDelta.seconds(5)
    /// The least time between two probes after drops.
    static let afterDropInterval = TimeDelta.seconds(5)

    private enum Phase { case initial, waiting, complete }

    let enabled: Bool
    let startBitrate: DataRate
    let maximumBitrate: DataRate
    private var phase = Phase.initial
    private var minimumToProbeFurther = DataRate(bitsPerSecond: .max)
    private var lastProbeTime = Timestamp.zero
    private var nextID = 1
    /// Clusters waiting to be sent, oldest first (at most a few at any time).
    private var pending: [ProbeCluster] = []
    private(set) var clustersIssued = 0
    /// How long the bursts of the last probing round were meant to last.
    private var lastDuration = minimumProbeDuration
    private var retries = 0
    /// The path's delay variation as last measured (see ``DelayBasedBandwidthEstimator/delayVariation``).
    var delayVariation = TimeDelta.zero
    /// The estimate when the overuse in progress began, and when.
    private var overuseStart: (estimate: DataRate, at: Timestamp)?
    /// When a probe after a drop was last sent.
    private var lastAfterDropProbe: Timestamp?
    /// Probes sent after large drops.
    private(set) var afterDropProbes = 0

    init(enabled: Bool, startBitrate: DataRate, maximumBitrate: DataRate) {
        self.enabled = enabled
        self.startBitrate = startBitrate
        self.maximumBitrate = maximumBitrate
        pending.reserveCapacity(4)
        if !enabled { phase = .complete }
    }

    var storageFingerprint: [Int] { fingerprint(pending) }

    /// The next cluster to send at `now`, if any; the first call starts probing.
    mutating func nextCluster(at now: Timestamp) -> ProbeCluster? {
        if phase == .initial {
            probe(at: now, rates: startBitrate * Self.initialScales.0, startBitrate * Self.initialScales.1)
        }
        if phase == .waiting, now - lastProbeTime > Self.maxWaitForResult, pending.isEmpty { phase = .complete }
        guard !pending.isEmpty else { return nil }
        return pending.removeFirst()
    }

    /// The estimate moved to `estimate` at `now`: probe further while it keeps up with
    /// the probes.
    mutating func onEstimate(_ estimate: DataRate, at now: Timestamp) {
        switch phase {
        case .initial:
            return
        case .waiting:
            if estimate > minimumToProbeFurther {
                probe(at: now, rates: estimate * Self.furtherScale)
            } else if burstsWereTooShort(at: now) {
                retry(estimate, at: now)
            } else if now - lastProbeTime > Self.maxWaitForResult {
                phase = .complete
            }
        case .complete:
            if burstsWereTooShort(at: now) { retry(estimate, at: now) }
        }
    }

    /// A probe at `rate` the sender asked for; it does not start start-up probing, and a
    /// result above 70 % of it probes further as any result does.
    mutating func request(_ rate: DataRate, at now: Timestamp) {
        guard enabled, phase != .initial, pending.isEmpty else { return }
        probe(at: now, rates: rate)
    }

    /// The path showed a bottleneck (the delay detector found overuse at `now`, with the
    /// estimate at `estimateBefore` before this feedback): what the estimate lacks is not a
    /// longer burst, so start-up probing is not run again.
    mutating func onOveruse(estimateBefore: DataRate, at now: Timestamp) {
        retries = Self.maximumRetries
        if overuseStart == nil { overuseStart = (estimateBefore, now) }
    }

    /// The delay detector called an overuse over at `now`, with the estimate at `estimate`:
    /// if the overuse cut the estimate by more than a third, probe once at 85 % of what it
    /// was (see the type's comment).
    mutating func onOveruseEnded(estimate: DataRate, at now: Timestamp) {
        defer { overuseStart = nil }
        // Not while start-up probing has yet to begin or a burst waits to be sent; a round
        // still waiting for results was sent before the overuse and says nothing of it.
        guard enabled, phase != .initial, pending.isEmpty, let start = overuseStart,
              estimate < start.estimate * Self.largeDropThreshold, now - start.at < Self.afterDropTimeout,
              lastAfterDropProbe.map({ now - $0 >= Self.afterDropInterval }) ?? true else { return }
        let rate = start.estimate * Self.afterDropFraction
        // Worth it only if even a result 5 % short of the probe would raise the estimate.
        guard rate * 0.95 > estimate else { return }
        lastAfterDropProbe = now
        afterDropProbes += 1
        probe(at: now, rates: rate)
        // One burst: its result sets the estimate; it does not start a climb of its own.
        minimumToProbeFurther = DataRate(bitsPerSecond: .max)
    }

    /// Whether the last round's bursts, now that their feedback is in, turned out too short
    /// for this path's jitter, so their results (or their absence) said little.
    private func burstsWereTooShort(at now: Timestamp) -> Bool {
        enabled && retries < Self.maximumRetries && pending.isEmpty && now - lastProbeTime >= Self.retryDelay
            && probeDuration >= lastDuration * Int64(2)
    }

    /// Probes again from `estimate`, as at start-up, with bursts that outlast the jitter.
    private mutating func retry(_ estimate: DataRate, at now: Timestamp) {
        guard estimate < maximumBitrate else { return }
        retries += 1
        probe(at: now, rates: estimate * Self.initialScales.0, estimate * Self.initialScales.1)
    }

    /// How long a burst should last on this path.
    var probeDuration: TimeDelta {
        let scaled = TimeDelta(microseconds: Int64(Double(delayVariation.microseconds) * Self.durationPerDelayVariation))
        return min(max(scaled, Self.minimumProbeDuration), Self.maximumProbeDuration)
    }

    private mutating func probe(at now: Timestamp, rates: DataRate...) {
        phase = .waiting
        lastProbeTime = now
        let duration = probeDuration
        lastDuration = duration
        for rate in rates {
            let capped = min(rate, maximumBitrate)
            guard pending.count < 4 else { break }
            let bytes = Int(capped.bytes(in: duration).rounded(.up))
            pending.append(ProbeCluster(id: nextID, bitrate: capped, minimumPackets: Self.minimumProbePackets,
                                        minimumBytes: max(bytes, 1)))
            nextID += 1
            clustersIssued += 1
            minimumToProbeFurther = capped * Self.furtherThreshold
            // Probing above the maximum teaches nothing the maximum does not already say.
            if capped >= maximumBitrate {
                minimumToProbeFurther = DataRate(bitsPerSecond: .max)
                break
            }
        }
    }
}
