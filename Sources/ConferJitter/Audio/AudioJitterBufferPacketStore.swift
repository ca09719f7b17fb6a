internal import ConferMedia

/// The packets waiting to be decoded, in timestamp order, in a fixed pool of slots whose
/// payload buffers are reused: storing a packet copies its bytes into a slot that already
/// has the capacity, so steady-state insertion allocates nothing.
struct AudioJitterBufferPacketStore {
    /// One stored packet.
    struct Entry {
        /// Unwrapped sequence number.
        var sequence: Int64 = 0
        /// Unwrapped RTP timestamp (48 kHz).
        var timestamp: Int64 = 0
        /// Samples per channel the packet decodes to.
        var frameCount = 0
        /// When it arrived.
        var arrival: Timestamp = .zero
        /// Its arrival delay relative to the fastest recent packet, in microseconds.
        var relativeDelay: Int64 = 0
        /// Whether it carries FEC for the packet before it.
        var hasFEC = false
        /// Whether it is a DTX packet (all frames empty).
        var isDTX = false
        /// The payload, as the decoder takes it.
        var frame: EncodedFrame

        /// The timestamp just after its audio.
        var endTimestamp: Int64 { timestamp + Int64(frameCount) }
    }

    private(set) var entries: [Entry]
    /// Slot indices in timestamp order.
    private var order: [Int]
    private var free: [Int]

    /// A store of `capacity` slots, each ready for a payload of `payloadCapacity` bytes.
    init(capacity: Int, payloadCapacity: Int) {
        entries = (0..<capacity).map { _ in
            var frame = EncodedFrame(codec: .opus, isKeyframe: true)
            frame.data.reserveCapacity(payloadCapacity)
            return Entry(frame: frame)
        }
        order = []
        order.reserveCapacity(capacity)
        free = Array((0..<capacity).reversed())
    }

    var count: Int { order.count }
    var isEmpty: Bool { order.isEmpty }
    var isFull: Bool { free.isEmpty }

    /// The slot of the earliest packet.
    var firstSlot: Int? { order.first }
    /// The earliest packet.
    var first: Entry? { order.first.map { entries[$0] } }
    /// The timestamp just after the latest packet's audio.
    var endTimestamp: Int64? { order.last.map { entries[$0].endTimestamp } }

    /// Stores a packet; false (nothing stored) when one with the same timestamp is held
    /// or no slot is free.
    mutating func insert(sequence: Int64, timestamp: Int64, info: OpusPacketInfo, arrival: Timestamp,
                         relativeDelay: Int64, payload: UnsafeRawBufferPointer) -> Bool {
        var position = order.count
        // Packets mostly arrive in order: search from the end.
        while position > 0, entries[order[position - 1]].timestamp > timestamp { position -= 1 }
        if position > 0, entries[order[position - 1]].timestamp == timestamp { return false }
        guard let slot = free.popLast() else { return false }
        entries[slot].sequence = sequence
        entries[slot].timestamp = timestamp
        entries[slot].frameCount = info.frameCount
        entries[slot].arrival = arrival
        entries[slot].relativeDelay = relativeDelay
        entries[slot].hasFEC = info.hasFEC
        entries[slot].isDTX = info.isDTX
        entries[slot].frame.timestamp = Timestamp.fromTicks(timestamp, rate: conferSampleRate)
        entries[slot].frame.duration = TimeDelta(microseconds: Int64(info.frameCount) * 125 / 6)
        entries[slot].frame.data.removeAll(keepingCapacity: true)
        entries[slot].frame.data.append(contentsOf: payload)
        order.insert(slot, at: position)
        return true
    }

    /// Drops the earliest packet.
    mutating func removeFirst() {
        guard !order.isEmpty else { return }
        free.append(order.removeFirst())
    }

    /// Drops every packet; returns how many there were.
    mutating func removeAll() -> Int {
        let removed = order.count
        while let slot = order.popLast() { free.append(slot) }
        return removed
    }
}
