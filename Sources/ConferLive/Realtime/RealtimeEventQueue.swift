import Synchronization

/// The queue between a ``RealtimeLoop``'s producers (the socket reader, the sleepers) and
/// its one consumer: a ring of events behind a lock and at most one waiting consumer.
///
/// It does what an `AsyncStream` with `.bufferingOldest` would, without the allocation an
/// `AsyncStream` makes for every element handed to a waiting consumer (its list of waiters
/// is an array that is emptied and refilled each time): the ring grows by doubling to its
/// limit and is reused, and a waiting consumer is one stored continuation. Beyond `limit`
/// events, new ones are dropped. Cancelling the consumer's task, or ``finish()``, ends it.
final class RealtimeEventQueue<Element: Sendable>: Sendable {
    private struct State {
        var ring: [Element?]
        var head = 0
        var count = 0
        var waiter: UnsafeContinuation<Element?, Never>?
        var isFinished = false

        mutating func push(_ element: Element, limit: Int) -> Bool {
            if count == ring.count {
                guard ring.count < limit else { return false }
                // Unroll into a ring twice the size, oldest first.
                var bigger = [Element?](repeating: nil, count: min(ring.count * 2, limit))
                for index in 0 ..< count { bigger[index] = ring[(head + index) % ring.count] }
                ring = bigger
                head = 0
            }
            ring[(head + count) % ring.count] = element
            count += 1
            return true
        }

        mutating func pop() -> Element? {
            guard count > 0 else { return nil }
            let element = ring[head]
            ring[head] = nil
            head = (head + 1) % ring.count
            count -= 1
            return element
        }
    }

    /// Most events held.
    let limit: Int
    private let state: Mutex<State>

    init(limit: Int, initialCapacity: Int = 256) {
        self.limit = max(1, limit)
        state = Mutex(State(ring: [Element?](repeating: nil, count: max(1, min(initialCapacity, limit)))))
    }

    /// Queues `element` (or hands it to the waiting consumer); false when it was dropped: the queue is full or finished.
    @discardableResult
    func yield(_ element: Element) -> Bool {
        let (waiter, accepted) = state.withLock { state -> (UnsafeContinuation<Element?, Never>?, Bool) in
            if state.isFinished { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, true)
            }
            return (nil, state.push(element, limit: limit))
        }
        waiter?.resume(returning: element)
        return accepted
    }

    /// Ends the queue: the consumer gets nil once it has taken what is queued.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            state.isFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next event, waiting for one; nil once finished, or at once when the task is cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                let ready = state.withLock { state -> Element?? in
                    if let element = state.pop() { return .some(element) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}
