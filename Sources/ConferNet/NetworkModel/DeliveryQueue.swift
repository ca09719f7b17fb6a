public import ConferMedia

/// A packet coming out of a ``NetworkLink``.
public struct NetworkDelivery<Payload> {
    /// What was sent.
    public var payload: Payload
    /// Its size in bytes, as given to ``NetworkLink/send(_:byteCount:at:)``.
    public var byteCount: Int
    /// When it was sent.
    public var sentAt: Timestamp
    /// When it arrives.
    public var deliveryTime: Timestamp
    /// Its position in the link's send order (0 for the first packet); a duplicate shares it.
    public var sequenceNumber: UInt64
    /// Whether this is the extra copy made by duplication.
    public var isDuplicate: Bool

    /// How long the packet took.
    public var latency: TimeDelta { deliveryTime - sentAt }

    @usableFromInline
    init(payload: Payload, byteCount: Int, sentAt: Timestamp, deliveryTime: Timestamp, sequenceNumber: UInt64,
         isDuplicate: Bool) {
        self.payload = payload
        self.byteCount = byteCount
        self.sentAt = sentAt
        self.deliveryTime = deliveryTime
        self.sequenceNumber = sequenceNumber
        self.isDuplicate = isDuplicate
    }
}

extension NetworkDelivery: Sendable where Payload: Sendable {}

/// A binary min-heap of deliveries ordered by (delivery time, insertion order), so packets due
/// at the same instant come out in the order they were scheduled.
///
/// The heap moves only plain keys (time, order, slot); the deliveries wait in a slot array
/// and are moved out once, so sifting never retains or releases a payload. All three arrays
/// keep their capacity, so a link in steady state allocates nothing. Inlinable because it
/// is generic: specialized at the caller it is about 7× faster than through runtime metadata.
@usableFromInline
struct DeliveryQueue<Payload> {
    @usableFromInline
    struct Key: Sendable {
        @usableFromInline var time: Int64
        @usableFromInline var order: UInt64
        @usableFromInline var slot: Int

        @inlinable
        init(time: Int64, order: UInt64, slot: Int) {
            self.time = time
            self.order = order
            self.slot = slot
        }

        @inlinable
        func precedes(_ other: Key) -> Bool { time != other.time ? time < other.time : order < other.order }
    }

    @usableFromInline var keys: [Key] = []
    @usableFromInline var slots: [NetworkDelivery<Payload>?] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var nextOrder: UInt64 = 0

    @inlinable init() {}

    @inlinable var count: Int { keys.count }
    @inlinable var first: NetworkDelivery<Payload>? { keys.first.flatMap { slots[$0.slot] } }
    @inlinable var firstDeliveryTime: Timestamp? { keys.first.map { Timestamp(microseconds: $0.time) } }

    mutating func reserveCapacity(_ n: Int) {
        keys.reserveCapacity(n)
        slots.reserveCapacity(n)
        freeSlots.reserveCapacity(n)
    }

    /// The arrays' buffer addresses and capacities: unchanged while nothing is allocated.
    var storageFingerprint: [Int] {
        [keys.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }, keys.capacity,
         slots.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }, slots.capacity,
         freeSlots.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }, freeSlots.capacity]
    }

    @inlinable
    mutating func insert(_ delivery: NetworkDelivery<Payload>) {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = delivery
        } else {
            slot = slots.count
            slots.append(delivery)
        }
        keys.append(Key(time: delivery.deliveryTime.microseconds, order: nextOrder, slot: slot))
        nextOrder &+= 1
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard keys[child].precedes(keys[parent]) else { break }
            keys.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable
    mutating func popFirst() -> NetworkDelivery<Payload>? {
        guard let top = keys.first else { return nil }
        keys.swapAt(0, keys.count - 1)
        keys.removeLast()
        var parent = 0
        let count = keys.count
        while true {
            let left = 2 * parent + 1, right = left + 1
            var best = parent
            if left < count && keys[left].precedes(keys[best]) { best = left }
            if right < count && keys[right].precedes(keys[best]) { best = right }
            if best == parent { break }
            keys.swapAt(parent, best)
            parent = best
        }
        var delivery: NetworkDelivery<Payload>?
        swap(&delivery, &slots[top.slot])
        freeSlots.append(top.slot)
        return delivery
    }

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        freeSlots.removeAll(keepingCapacity: true)
    }
}

extension DeliveryQueue: Sendable where Payload: Sendable {}
