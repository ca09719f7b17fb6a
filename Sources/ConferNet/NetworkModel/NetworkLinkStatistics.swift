public import ConferMedia

/// Why a simulated packet did not arrive.
public enum PacketLossCause: String, Codable, Sendable, CaseIterable {
    /// Independent random loss (``NetworkConditions/loss``).
    case random
    /// Gilbert–Elliott burst loss (``NetworkConditions/burstLoss``).
    case burst
    /// Dropped at the tail of the full bottleneck queue.
    case queue
    /// A `loss` line of the ``NetworkTrace`` driving the link.
    case trace
}

/// Counters of one ``NetworkLink``: a snapshot the CLI prints as JSON or a table.
public struct NetworkLinkStatistics: Codable, Sendable, Equatable {
    /// Packets handed to the link.
    public var packetsSent = 0
    /// Packets handed out by the link, duplicates included.
    public var packetsDelivered = 0
    /// Extra copies created by duplication.
    public var packetsDuplicated = 0
    /// Deliveries that came after a packet sent later had already been delivered.
    public var packetsReordered = 0
    /// Packets lost to independent random loss.
    public var lostRandom = 0
    /// Packets lost to burst loss.
    public var lostBurst = 0
    /// Packets dropped by the full bottleneck queue.
    public var droppedQueue = 0
    /// Packets lost because the trace said so.
    public var lostTrace = 0
    /// Payload bytes handed to the link.
    public var bytesSent = 0
    /// Payload bytes handed out by the link, duplicates included.
    public var bytesDelivered = 0
    /// Sum of the time packets waited at the bottleneck (for the mean).
    public var totalQueueingDelay = TimeDelta.zero
    /// Longest time a packet waited at the bottleneck.
    public var maxQueueingDelay = TimeDelta.zero
    /// Bytes (with overhead) waiting at the bottleneck when the last packet arrived.
    public var queueBytes = 0
    /// Packets accepted but not yet handed out.
    public var packetsInFlight = 0

    /// Zero counters.
    public init() {}

    /// Packets that did not arrive, whatever the cause.
    public var packetsLost: Int { lostRandom + lostBurst + droppedQueue + lostTrace }

    /// Lost packets as a fraction of packets sent (0 before any was sent).
    public var lossRate: Double { packetsSent > 0 ? Double(packetsLost) / Double(packetsSent) : 0 }

    /// Mean wait at the bottleneck of the packets it accepted.
    public var meanQueueingDelay: TimeDelta {
        let accepted = packetsSent - droppedQueue
        return accepted > 0 ? TimeDelta(microseconds: totalQueueingDelay.microseconds / Int64(accepted)) : .zero
    }

    /// Packets lost to `cause`.
    public func lost(_ cause: PacketLossCause) -> Int {
        switch cause {
        case .random: lostRandom
        case .burst: lostBurst
        case .queue: droppedQueue
        case .trace: lostTrace
        }
    }

    mutating func count(_ cause: PacketLossCause) {
        switch cause {
        case .random: lostRandom += 1
        case .burst: lostBurst += 1
        case .queue: droppedQueue += 1
        case .trace: lostTrace += 1
        }
    }
}
