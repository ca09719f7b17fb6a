/// Datagrams a pipeline wrote from its synchronous output closure, held until the driver
/// can await sending them: each one is copied into one byte store that grows by doubling
/// and is reused, so once it has grown to the largest burst (a keyframe's packets)
/// queuing allocates nothing.
///
/// Not `Sendable`: one task fills and drains it.
final class DatagramQueue {
    private var storage: UnsafeMutableRawBufferPointer
    private var used = 0
    private var ends: [Int] = []

    init(reservingBytes: Int = 64 * 1500, datagrams: Int = 64) {
        storage = .allocate(byteCount: max(reservingBytes, 1500), alignment: 16)
        ends.reserveCapacity(datagrams)
    }

    deinit { storage.deallocate() }

    /// Datagrams queued.
    var count: Int { ends.count }
    /// Whether nothing is queued.
    var isEmpty: Bool { ends.isEmpty }

    /// Copies `datagram` in.
    func append(_ datagram: UnsafeRawBufferPointer) {
        if used + datagram.count > storage.count {
            var capacity = storage.count * 2
            while used + datagram.count > capacity { capacity *= 2 }
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
            bigger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0 ..< used]))
            storage.deallocate()
            storage = bigger
        }
        UnsafeMutableRawBufferPointer(rebasing: storage[used ..< used + datagram.count]).copyMemory(from: datagram)
        used += datagram.count
        ends.append(used)
    }

    /// Datagram `index` (0 ..< ``count``), valid until the queue changes.
    subscript(index: Int) -> UnsafeRawBufferPointer {
        let start = index == 0 ? 0 : ends[index - 1]
        return UnsafeRawBufferPointer(rebasing: storage[start ..< ends[index]])
    }

    /// Forgets everything queued, keeping the storage.
    func removeAll() {
        used = 0
        ends.removeAll(keepingCapacity: true)
    }
}
