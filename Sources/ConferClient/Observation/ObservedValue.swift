import Synchronization

/// A value that changes over time, observed as an `AsyncSequence` whose first element is
/// the current value and whose next ones are the changes (GRDB's `ValueObservation` shape).
/// A slow observer keeps only the newest value, never an unbounded queue.
public final class ObservedValue<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var observers: [UInt64: AsyncStream<Value>.Continuation] = [:]
        var next: UInt64 = 0
    }

    private let state: Mutex<State>

    /// A value starting at `initial`.
    public init(_ initial: Value) { state = Mutex(State(value: initial)) }

    /// The value now.
    public var current: Value { state.withLock { $0.value } }

    /// The current value, then every change.
    public var values: AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64 in
            continuation.yield(state.value)
            state.next += 1
            state.observers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            // Never wait for the lock here: a cancelled observer's task runs this holding
            // its own status lock, which a `set` holding ours needs to yield to it. If the
            // lock is taken, the next change drops the observer (its yield says terminated).
            _ = self?.state.withLockIfAvailable { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the value; observers hear of it only when it changed.
    func set(_ value: Value) {
        update { $0 = value }
    }

    /// Changes the value in place.
    func update(_ change: (inout Value) -> Void) {
        state.withLock { state in
            var value = state.value
            change(&value)
            guard value != state.value else { return }
            state.value = value
            // Yielded under the lock, so observers see changes in the order they were made.
            state.observers = state.observers.filter { _, observer in
                if case .terminated = observer.yield(value) { return false }
                return true
            }
        }
    }

    /// Ends every observation. The continuations finish outside the lock: finishing runs
    /// their termination handlers, which take the lock.
    func finish() {
        let observers = state.withLock { state in
            defer { state.observers.removeAll() }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }
}

/// Events as an `AsyncSequence` per observer: each observer gets every event from the moment
/// it subscribed, in order (up to `limit` queued, then the oldest are kept and newer dropped
/// and counted, so a stalled observer cannot grow memory without bound).
public final class EventBroadcast<Event: Sendable>: Sendable {
    private struct State {
        var observers: [UInt64: AsyncStream<Event>.Continuation] = [:]
        var next: UInt64 = 0
        var dropped = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let limit: Int

    /// A broadcast queuing at most `limit` events per observer.
    public init(limit: Int = 4096) { self.limit = limit }

    /// Every event from now on.
    public var events: AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(limit))
        let id: UInt64? = state.withLock { state in
            if state.finished { return nil }
            state.next += 1
            state.observers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            // As in ``ObservedValue``: never wait for the lock a `send` may hold while it
            // yields to this observer's task; the next event drops it otherwise.
            _ = self?.state.withLockIfAvailable { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Events an observer could not keep up with.
    public var droppedEvents: Int { state.withLock { $0.dropped } }

    func send(_ event: Event) {
        state.withLock { state in
            var dropped = 0
            state.observers = state.observers.filter { _, observer in
                switch observer.yield(event) {
                case .terminated: return false
                case .dropped: dropped += 1
                case .enqueued: break
                @unknown default: break
                }
                return true
            }
            state.dropped += dropped
        }
    }

    func finish() {
        let observers = state.withLock { state in
            state.finished = true
            defer { state.observers.removeAll() }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }
}
