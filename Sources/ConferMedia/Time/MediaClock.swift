import Synchronization

/// A source of media time that everything which waits reads from.
///
/// Time is injected: jitter buffers, pacers, simulators and timeouts take a clock, so
/// tests drive them with a ``ManualClock`` in virtual time and the CLI uses ``WallClock``.
public protocol MediaClock: Sendable {
    /// The current time on this clock.
    var now: Timestamp { get }
    /// Suspends until this clock reads `deadline` or later.
    func sleep(until deadline: Timestamp) async throws
}

/// The machine's monotonic clock, with its epoch at the moment the clock was created.
public struct WallClock: MediaClock {
    private let origin: ContinuousClock.Instant

    /// A clock whose `now` is zero at this call.
    public init() { origin = ContinuousClock.now }

    public var now: Timestamp {
        let elapsed = ContinuousClock.now - origin
        let (s, attos) = elapsed.components
        return Timestamp(microseconds: s * 1_000_000 + attos / 1_000_000_000_000)
    }

    public func sleep(until deadline: Timestamp) async throws {
        let target = origin + .microseconds(deadline.microseconds)
        try await Task.sleep(until: target, clock: .continuous)
    }
}

/// A virtual clock that moves only when told to, for deterministic tests and
/// faster-than-real-time simulation.
///
/// Sleepers whose deadline has been reached are resumed by ``advance(by:)`` or
/// ``advance(to:)``, in deadline order.
public final class ManualClock: MediaClock {
    private struct Sleeper {
        let deadline: Timestamp
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Timestamp
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }
    private let state: Mutex<State>

    /// A clock that reads `start` until it is advanced.
    public init(start: Timestamp = .zero) { state = Mutex(State(now: start)) }

    public var now: Timestamp { state.withLock { $0.now } }

    /// How many tasks are suspended in ``sleep(until:)``.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Timestamp) async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let resumeNow = state.withLock { s -> Bool in
                if deadline <= s.now { return true }
                s.sleepers.append(Sleeper(deadline: deadline, id: s.nextID, continuation: c))
                s.nextID += 1
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    /// Moves the clock forward by `delta` and wakes every sleeper whose deadline passed.
    public func advance(by delta: TimeDelta) { advance(to: now + delta) }

    /// Moves the clock to `time` (never backwards) and wakes every sleeper due by then.
    public func advance(to time: Timestamp) {
        let due = state.withLock { s -> [Sleeper] in
            if time > s.now { s.now = time }
            let ready = s.sleepers.filter { $0.deadline <= s.now }
            s.sleepers.removeAll { $0.deadline <= s.now }
            return ready.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
