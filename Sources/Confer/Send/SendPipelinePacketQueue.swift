/// RTP packets waiting for the pacer: a fixed ring of slots, each one packet of at most
/// `slotSize` bytes with where its header extensions sit, first in first out. Allocated
/// once; pushing and popping copy bytes and never allocate.
///
/// Not a class: the transport owns its queues and frees their storage in its `deinit`
/// (``deallocate()``).
struct SendPipelinePacketQueue {
    /// Where a queued packet's transport-wide sequence number and abs-send-time go.
    struct Extensions {
        var transportSequenceOffset: Int?
        var absoluteSendTimeOffset: Int?
    }

    private let storage: UnsafeMutableRawBufferPointer
    private var entries: [(length: Int, extensions: Extensions)]
    private let slotSize: Int
    private var head = 0
    /// Packets waiting.
    private(set) var count = 0
    /// Bytes waiting.
    private(set) var bytes = 0

    /// A queue of `slots` packets of at most `slotSize` bytes (no storage when `slots` is 0).
    init(slots: Int, slotSize: Int) {
        self.slotSize = slotSize
        storage = .allocate(byteCount: max(slots, 0) * slotSize, alignment: 16)
        entries = Array(repeating: (0, Extensions()), count: max(slots, 0))
    }

    /// Frees the storage; the queue must not be used after.
    func deallocate() { storage.deallocate() }

    /// Whether a packet of `length` bytes finds a slot.
    func accepts(_ length: Int) -> Bool { count < entries.count && length > 0 && length <= slotSize }

    /// Copies the packet in `packet` to the back (the caller checked ``accepts(_:)``).
    mutating func push(_ packet: UnsafeRawBufferPointer, extensions: Extensions) {
        let slot = (head + count) % entries.count
        UnsafeMutableRawBufferPointer(rebasing: storage[slot * slotSize ..< slot * slotSize + packet.count]).copyMemory(from: packet)
        entries[slot] = (packet.count, extensions)
        count += 1
        bytes += packet.count
    }

    /// Copies the front packet into `buffer` and removes it; nil when empty.
    mutating func pop(into buffer: UnsafeMutableRawBufferPointer) -> (length: Int, extensions: Extensions)? {
        guard count > 0 else { return nil }
        let entry = entries[head]
        UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< entry.length])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[head * slotSize ..< head * slotSize + entry.length]))
        head = (head + 1) % entries.count
        count -= 1
        bytes -= entry.length
        return entry
    }
}
