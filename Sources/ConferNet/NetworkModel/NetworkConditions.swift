public import ConferMedia

/// What a simulated one-way network path does to packets: delay, jitter, loss, reordering,
/// duplication and a bandwidth bottleneck with a drop-tail queue.
///
/// A packet crosses the path in this order (see ``NetworkLink``):
/// 1. **Bottleneck.** With a ``bandwidth`` cap, the packet waits behind earlier ones and is
///    serialized at `(bytes + overheadBytes) × 8 / bandwidth`; if the queue is over its
///    ``queueLimit`` the packet is dropped (drop-tail).
/// 2. **Loss.** ``burstLoss`` (Gilbert–Elliott) and then independent ``loss`` decide whether
///    the packet vanishes on the path. Lost packets still used the bottleneck, as they
///    would on a real link whose loss is downstream of the queue.
/// 3. **Delay.** ``delay`` plus a ``jitter`` sample, never less than zero. With
///    ``preservesOrder`` (the default, like a real link) a packet never overtakes an earlier
///    one, so jitter only bunches packets up; otherwise jitter can reorder them.
/// 4. **Reordering.** With probability ``reorder`` a packet is held back by an extra
///    ``reorderDelay`` and skips the ordering rule, so later packets overtake it.
/// 5. **Duplication.** With probability ``duplicate`` a second copy is delivered, with its
///    own delay sample; the copy does not use the bottleneck.
public struct NetworkConditions: Codable, Sendable, Equatable {
    /// Mean one-way propagation delay (the jitter distributions have zero mean around it).
    public var delay: TimeDelta
    /// Variation of the delay around ``delay``.
    public var jitter: Jitter
    /// Whether jitter keeps packets in the order they were sent (true), or may reorder them.
    public var preservesOrder: Bool
    /// Probability (0…1) that a packet is lost, independently of every other packet.
    public var loss: Double
    /// Correlated (bursty) loss, applied before the independent ``loss``; nil for none.
    public var burstLoss: GilbertElliott?
    /// Probability (0…1) that a packet is held back by ``reorderDelay`` so later ones overtake it.
    public var reorder: Double
    /// How long a reordered packet is held back beyond its normal delay.
    public var reorderDelay: TimeDelta
    /// Probability (0…1) that a packet is delivered twice.
    public var duplicate: Double
    /// The bottleneck's rate in bits per second; nil for unlimited.
    public var bandwidth: Int?
    /// How much the bottleneck's drop-tail queue holds.
    public var queueLimit: QueueLimit
    /// Bytes added to every packet when counting it against ``bandwidth`` (28 = IPv4 + UDP).
    public var overheadBytes: Int

    /// A path with the given properties; every default leaves the packet untouched except
    /// ``overheadBytes``, which only matters with a ``bandwidth`` cap.
    public init(
        delay: TimeDelta = .zero, jitter: Jitter = .none, preservesOrder: Bool = true,
        loss: Double = 0, burstLoss: GilbertElliott? = nil,
        reorder: Double = 0, reorderDelay: TimeDelta = .milliseconds(20), duplicate: Double = 0,
        bandwidth: Int? = nil, queueLimit: QueueLimit = .duration(.milliseconds(200)), overheadBytes: Int = 28
    ) {
        self.delay = delay
        self.jitter = jitter
        self.preservesOrder = preservesOrder
        self.loss = loss
        self.burstLoss = burstLoss
        self.reorder = reorder
        self.reorderDelay = reorderDelay
        self.duplicate = duplicate
        self.bandwidth = bandwidth
        self.queueLimit = queueLimit
        self.overheadBytes = overheadBytes
    }

    /// A perfect path: no delay, no loss, no limit.
    public static let perfect = NetworkConditions()

    /// The probability that a packet is lost on the path in the long run (burst and
    /// independent loss together; queue drops not included).
    public var expectedLossRate: Double {
        let burst = burstLoss?.stationaryLossRate ?? 0
        return 1 - (1 - burst) * (1 - clampedProbability(loss))
    }
}

/// How much a bottleneck queue may hold before it drops arriving packets.
public enum QueueLimit: Codable, Sendable, Equatable {
    /// At most this many bytes (counting per-packet overhead) waiting.
    case bytes(Int)
    /// At most this much waiting time at the bottleneck's rate (a packet never queues longer).
    case duration(TimeDelta)

    /// The limit in bits at `bandwidth` bits per second (in floating point, which cannot
    /// overflow for any setting).
    func bits(bandwidth: Int) -> Double {
        switch self {
        case .bytes(let n): Double(max(0, n)) * 8
        case .duration(let d): Double(max(0, d.microseconds)) * Double(bandwidth) / 1_000_000
        }
    }
}

extension QueueLimit {
    private enum CodingKeys: String, CodingKey { case bytes, duration }

    /// Decodes `{"bytes": N}` or `{"duration": {"microseconds": N}}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let bytes = try container.decodeIfPresent(Int.self, forKey: .bytes) {
            self = .bytes(bytes)
        } else {
            self = .duration(try container.decode(TimeDelta.self, forKey: .duration))
        }
    }

    /// Encodes `{"bytes": N}` or `{"duration": {"microseconds": N}}` (not the `_0` keys of
    /// the synthesized form).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .bytes(let n): try container.encode(n, forKey: .bytes)
        case .duration(let d): try container.encode(d, forKey: .duration)
        }
    }
}

/// `p` limited to 0…1 (NaN counts as 0), so a bad setting cannot break the model.
func clampedProbability(_ p: Double) -> Double {
    p > 0 ? min(p, 1) : 0
}
