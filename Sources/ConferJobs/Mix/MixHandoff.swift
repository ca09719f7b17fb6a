import Dispatch
import Synchronization
import ConferMedia

/// A bounded single-producer, single-consumer queue between two threads: the producer
/// blocks while `capacity` items wait, the consumer blocks while none do.
///
/// Two counting semaphores carry the blocking (free slots, ready items) and a mutex guards
/// a fixed ring, so a handoff in steady state allocates nothing: the ring's storage is made
/// once and items are moved in and out of it. Either side can stop the other: the producer
/// with ``finish(throwing:)`` (the consumer drains what is queued, then sees the end or the
/// error), the consumer with ``cancel()`` (the producer's next ``put(_:)`` returns false).
final class MixHandoff<Element: Sendable>: Sendable {
    private struct Ring {
        var items: FixedRing<Element>
        var finished = false
        var failure: (any Error)?
        var cancelled = false
    }

    private let ring: Mutex<Ring>
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    /// Slots in the ring.
    let capacity: Int

    /// A handoff holding at most `capacity` items.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = Mutex(Ring(items: FixedRing(capacity: capacity)))
        free = .counting(self.capacity)
    }

    /// Queues `item`, waiting for a free slot; false when the consumer has cancelled (the
    /// item is dropped and the producer should stop).
    func put(_ item: Element) -> Bool {
        free.wait()
        let accepted = ring.withLock { ring -> Bool in
            guard !ring.cancelled else { return false }
            return ring.items.append(item)
        }
        // A refused put hands its slot back, so a producer that tries again never blocks.
        if accepted { ready.signal() } else { free.signal() }
        return accepted
    }

    /// The next item, waiting for one; nil once the producer has finished and the queue is
    /// empty. Rethrows the error the producer finished with, after the items before it.
    func take() throws -> Element? {
        ready.wait()
        let (item, failure) = ring.withLock { ring -> (Element?, (any Error)?) in
            guard let item = ring.items.popFirst() else { return (nil, ring.failure) }
            return (item, nil)
        }
        guard let item else {
            // Leave the end visible to any later take.
            ready.signal()
            if let failure { throw failure }
            return nil
        }
        free.signal()
        return item
    }

    /// Ends the stream (with `error`, if the producer failed); the consumer sees it after
    /// every queued item.
    func finish(throwing error: (any Error)? = nil) {
        ring.withLock { ring in
            ring.finished = true
            ring.failure = error
        }
        ready.signal()
    }

    /// Tells the producer to stop: its waiting or next ``put(_:)`` returns false.
    func cancel() {
        ring.withLock { ring in
            ring.cancelled = true
            ring.items.removeAll()
        }
        free.signal()
    }
}
