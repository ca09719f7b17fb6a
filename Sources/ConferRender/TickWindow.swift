/// Counts events per refresh over a recent span of refreshes, in a ring allocated once:
/// the source of "drawn fps over the last second".
///
/// The ring keeps one refresh more than a second so that events recorded for the coming
/// refresh (frames arriving before it) do not push out the oldest refresh of the second
/// that ends now.
struct TickWindow: Hashable, Sendable {
    private var counts: [Int32]
    /// The refresh the newest slot belongs to.
    private var head: Int64 = 0
    /// The newest slot's index, kept alongside `head` so the per-event path divides nothing.
    private var headSlot = 0

    /// A window able to answer for spans of up to `span` refreshes.
    init(span: Int) { counts = [Int32](repeating: 0, count: max(1, span) + 1) }

    /// Adds `n` events at refresh `tick` (a tick before the newest counts as the newest).
    mutating func add(_ n: Int = 1, at tick: Int64) {
        advance(to: tick)
        counts[headSlot] &+= Int32(truncatingIfNeeded: n)
    }

    /// Events in the `span` refreshes ending with `tick`.
    func sum(span: Int, endingAt tick: Int64) -> Int {
        let first = max(tick - Int64(span) + 1, head - Int64(counts.count) + 1)
        let last = min(tick, head)
        guard first <= last else { return 0 }
        var sum = 0
        for t in first...last { sum += Int(counts[slot(t)]) }
        return sum
    }

    private mutating func advance(to tick: Int64) {
        guard tick > head else { return }
        if tick - head >= Int64(counts.count) {
            for i in counts.indices { counts[i] = 0 }
            headSlot = slot(tick)
        } else {
            for _ in 0..<(tick - head) {
                headSlot = headSlot == counts.count - 1 ? 0 : headSlot + 1
                counts[headSlot] = 0
            }
        }
        head = tick
    }

    private func slot(_ tick: Int64) -> Int {
        let n = Int64(counts.count)
        return Int(((tick % n) + n) % n)
    }
}
