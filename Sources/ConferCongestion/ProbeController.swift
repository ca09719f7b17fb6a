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

/// Decides when to probe (libwebrtc's `ProbeController`, start-up part only): at start,
/// bursts at 3× and 6× the start rate; then, while results keep arriving, another at 2×
/// the estimate each time the estimate exceeds 70 % of the last probe, until a second
/// passes without such a result or the maximum rate is reached. This is what lets GCC
/// find a link's capacity in a second or two instead of climbing at 8 % per second.
struct ProbeController: Sendable {
    static let initialScales = (3.0, 6.0)
    static let furtherScale = 2.0
    static let furtherThreshold = 0.7
    static let maxWaitForResult = TimeDelta.seconds(1)
    static let minimumProbeDuration = TimeDelta.milliseconds(15)
    static let minimumProbePackets = 5

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
        guard phase == .waiting else { return }
        if now - lastProbeTime > Self.maxWaitForResult {
            phase = .complete
        } else if estimate > minimumToProbeFurther {
            probe(at: now, rates: estimate * Self.furtherScale)
        }
    }

    private mutating func probe(at now: Timestamp, rates: DataRate...) {
        phase = .waiting
        lastProbeTime = now
        for rate in rates {
            let capped = min(rate, maximumBitrate)
            guard pending.count < 4 else { break }
            let bytes = Int(capped.bytes(in: Self.minimumProbeDuration).rounded(.up))
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
