/// A first-in, first-out ring of at most `capacity` elements over storage made once: the
/// queue inside the bounded hand-offs between threads (the mix job's encoder hand-off, the
/// composite loop's canvases). Appending and taking move elements in and out of fixed
/// slots, so a ring in steady state allocates nothing.
///
/// A value type with no locking of its own: the hand-off that owns it guards it.
package struct FixedRing<Element> {
    private var slots: [Element?]
    private var head = 0
    /// Elements waiting.
    package private(set) var count = 0

    /// An empty ring holding at most `capacity` (at least 1) elements.
    package init(capacity: Int) {
        slots = [Element?](repeating: nil, count: max(1, capacity))
    }

    /// The most elements it holds.
    package var capacity: Int { slots.count }
    /// No element waits.
    package var isEmpty: Bool { count == 0 }
    /// No slot is free.
    package var isFull: Bool { count == slots.count }

    /// Adds `element` at the end; false (and nothing added) when the ring is full.
    @discardableResult
    package mutating func append(_ element: Element) -> Bool {
        guard !isFull else { return false }
        slots[(head + count) % slots.count] = element
        count += 1
        return true
    }

    /// Takes the first element out; nil when none waits.
    package mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head].take()
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Drops every waiting element, keeping the storage.
    package mutating func removeAll() {
        for index in slots.indices { slots[index] = nil }
        head = 0
        count = 0
    }
}
