public import ConferMedia

/// What ``NetworkLink/send(_:byteCount:at:)`` decided for one packet.
public struct NetworkSendResult: Sendable, Equatable {
    /// Why the packet was lost; nil when it will be delivered.
    public var lossCause: PacketLossCause?
    /// When it will be delivered; nil when lost.
    public var deliveryTime: Timestamp?
    /// When its duplicate will be delivered; nil when it was not duplicated.
    public var duplicateDeliveryTime: Timestamp?
    /// How long it waits at the bottleneck before it is serialized.
    public var queueingDelay: TimeDelta

    /// Whether the packet will arrive.
    public var isDelivered: Bool { deliveryTime != nil }
}

/// One direction of a simulated network path: the pure model, with no I/O, no threads and
/// no clock of its own (GStreamer's and libwebrtc's style).
///
/// The caller sends packets at the times it chooses and later pops them in delivery order
/// with ``nextDelivery(until:)`` or ``deliveries(until:)``; ``nextDeliveryTime`` says when
/// to come back. The link keeps the payload of every packet in flight, so ``send(_:byteCount:at:)``
/// returns only a small result and the hot path allocates nothing once the internal queue
/// has grown to the number of packets in flight (see ``reserveCapacity(_:)``).
///
/// Randomness comes from a ``SeededRandom`` seeded at creation: the same seed, conditions and
/// send times give the same delivery schedule, bit for bit. Draws are made only for features
/// that are switched on, so turning on, say, duplication changes the schedule of later packets.
public struct NetworkLink<Payload> {
    @usableFromInline var path: NetworkPath
    @usableFromInline var inFlight = DeliveryQueue<Payload>()

    /// A link with `conditions`, drawing randomness from `seed`, optionally driven by `trace`.
    public init(conditions: NetworkConditions, seed: UInt64, trace: NetworkTrace? = nil) {
        path = NetworkPath(conditions: conditions, seed: seed, trace: trace)
    }

    /// The path's properties.
    public var conditions: NetworkConditions { path.conditions }

    /// Counters so far.
    public var statistics: NetworkLinkStatistics {
        var statistics = path.statistics
        statistics.packetsInFlight = inFlight.count
        return statistics
    }

    /// Reserves room for `packets` in flight, so even the first packets allocate nothing.
    public mutating func reserveCapacity(_ packets: Int) { inFlight.reserveCapacity(packets) }

    /// Sends `payload` of `byteCount` bytes into the link at `time`; the result says whether and
    /// when it will come out. Send times should not go backwards.
    @inlinable @discardableResult
    public mutating func send(_ payload: Payload, byteCount: Int, at time: Timestamp) -> NetworkSendResult {
        let admission = path.admit(byteCount: byteCount, at: time)
        if let arrival = admission.result.deliveryTime {
            inFlight.insert(NetworkDelivery(payload: payload, byteCount: byteCount, sentAt: time, deliveryTime: arrival,
                                            sequenceNumber: admission.sequence, isDuplicate: false))
        }
        if let copy = admission.result.duplicateDeliveryTime {
            inFlight.insert(NetworkDelivery(payload: payload, byteCount: byteCount, sentAt: time, deliveryTime: copy,
                                            sequenceNumber: admission.sequence, isDuplicate: true))
        }
        return admission.result
    }

    /// When the next packet comes out; nil when none is in flight.
    @inlinable
    public var nextDeliveryTime: Timestamp? { inFlight.firstDeliveryTime }

    /// Packets accepted and not yet handed out.
    @inlinable
    public var packetsInFlight: Int { inFlight.count }

    /// The next packet due at or before `time`, removed from the link; nil when none is due.
    /// Packets due at the same instant come out in the order they were scheduled.
    @inlinable
    public mutating func nextDelivery(until time: Timestamp) -> NetworkDelivery<Payload>? {
        guard let first = inFlight.firstDeliveryTime, first <= time, let delivery = inFlight.popFirst() else { return nil }
        path.recordDelivery(sequence: delivery.sequenceNumber, byteCount: delivery.byteCount)
        return delivery
    }

    /// Every packet due at or before `time`, in delivery order (allocates the array; use
    /// ``nextDelivery(until:)`` on hot paths).
    public mutating func deliveries(until time: Timestamp) -> [NetworkDelivery<Payload>] {
        var due: [NetworkDelivery<Payload>] = []
        while let delivery = nextDelivery(until: time) { due.append(delivery) }
        return due
    }

    /// Drops every packet in flight (for example when a relay stops); they count as neither
    /// delivered nor lost.
    public mutating func discardInFlight() { inFlight.removeAll() }

    /// Bytes (with overhead) waiting at the bottleneck at `time`, the packet being serialized included.
    public func queuedBytes(at time: Timestamp) -> Int { path.queuedBytes(at: time) }

    /// The in-flight queue's storage identity, for allocation tests.
    var storageFingerprint: [Int] { inFlight.storageFingerprint }

    /// When the packet due next was sent (to break ties between links).
    var headSentAt: Timestamp? { inFlight.first?.sentAt }
}

extension NetworkLink: Sendable where Payload: Sendable {}

extension NetworkLink where Payload == [UInt8] {
    /// Sends the datagram `bytes` into the link at `time`.
    @inlinable @discardableResult
    public mutating func send(_ bytes: [UInt8], at time: Timestamp) -> NetworkSendResult {
        send(bytes, byteCount: bytes.count, at: time)
    }
}
