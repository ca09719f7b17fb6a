import Synchronization

/// Recycles frame storage so that steady-state video work allocates nothing per frame.
///
/// A pool hands out ``MutableVideoFrame``s of one layout. Storage returns to the pool
/// by itself when the last ``VideoFrame`` that uses it goes away. When every buffer is in
/// use, the pool grows up to `capacity` buffers and then allocates unpooled storage
/// (counted in ``overflowCount``) rather than block a real-time path.
public final class FramePool: Sendable {
    /// The picture geometry of every frame this pool makes.
    public let layout: FrameLayout
    /// How many buffers the pool keeps for reuse.
    public let capacity: Int
    private let buffers: Mutex<[FrameStorage]>
    private let overflows = Atomic<Int>(0)

    /// A pool of up to `capacity` frames of `width` × `height`.
    public convenience init(width: Int, height: Int, capacity: Int = 8) {
        self.init(layout: FrameLayout(width: width, height: height), capacity: capacity)
    }

    /// A pool of up to `capacity` frames of `layout` (a decoder's padded layout, for example).
    public init(layout: FrameLayout, capacity: Int = 8) {
        self.layout = layout
        self.capacity = max(1, capacity)
        buffers = Mutex([])
        buffers.withLock { $0.reserveCapacity(self.capacity) }
    }

    /// How many frames were made with unpooled storage because every buffer was in use.
    public var overflowCount: Int { overflows.load(ordering: .relaxed) }

    /// How many buffers the pool has allocated so far.
    public var allocatedCount: Int { buffers.withLock { $0.count } }

    /// A frame to write into, on recycled storage when any is free.
    public func makeFrame(timestamp: Timestamp = .zero) -> MutableVideoFrame {
        MutableVideoFrame(storage: takeStorage(), layout: layout, timestamp: timestamp)
    }

    /// Storage that no frame uses: recycled, new within `capacity`, or unpooled beyond it.
    func takeStorage() -> FrameStorage {
        let storage = buffers.withLock { list -> FrameStorage? in
            // A buffer is free when the pool's reference is the only one left; no other
            // thread can take a new reference to it then, so the check cannot race.
            for i in list.indices where isKnownUniquelyReferenced(&list[i]) {
                return list[i]
            }
            guard list.count < capacity else { return nil }
            let fresh = FrameStorage(capacity: layout.byteCount)
            list.append(fresh)
            return fresh
        }
        if let storage { return storage }
        overflows.add(1, ordering: .relaxed)
        return FrameStorage(capacity: layout.byteCount)
    }
}
