import ConferMedia
import ConferNet

/// What wakes a driver running in a ``RealtimeLoop``.
enum RealtimeEvent: Sendable {
    /// A datagram arrived at `arrival`. Its bytes come from the loop's ``UDPBufferPool``:
    /// give them back once read.
    case datagram(UDPDatagram, arrival: Timestamp)
    /// A time the driver asked to be woken at has come.
    case wake
}

/// What a driver wants once it has handled an event.
enum RealtimeNext {
    /// Wait for the next datagram, or until this time if it comes first (nil: no deadline;
    /// a time already past: go round again at once, after the datagrams already queued).
    case wait(until: Timestamp?)
    /// End the loop.
    case stop
}

/// Drives a synchronous, time-driven pipeline (``SendPipeline``, ``ReceivePipeline``)
/// behind a UDP socket on a real clock: one task — the caller's — handles every event in
/// turn, so the pipeline has one owner and needs no lock.
///
/// A child task reads the socket and queues each datagram (``RealtimeEventQueue``), stamped
/// with its arrival time, as it comes; a deadline the driver asks for is a child task that
/// sleeps until then and queues a wake-up. Only a deadline earlier than every one already armed gets a sleeper
/// (a later one will be looked at when an earlier wake-up comes), so a driver that asks for
/// its next poll time after each event starts a sleeper only when that time moves earlier.
/// The queue holds at most 4096 events; beyond that datagrams are dropped, as a full socket
/// buffer would drop them. A dropped wake-up is harmless: the driver looks at the clock
/// after every event.
enum RealtimeLoop {
    /// How the loop ended.
    enum Ending {
        /// The driver returned ``RealtimeNext/stop``.
        case stopped
        /// The calling task was cancelled.
        case cancelled
    }

    /// Most events waiting for the driver.
    static let queueLimit = 4096

    /// Runs `handle` for each event until it says stop or the task is cancelled; the time
    /// passed with each event is the clock's when the driver takes it up. The first call
    /// is a ``RealtimeEvent/wake`` at once.
    ///
    /// - Throws: what `handle` throws, or the socket's error if reading fails.
    static func run(socket: UDPSocket, clock: some MediaClock, pool: UDPBufferPool,
                    handle: (RealtimeEvent, Timestamp) async throws -> RealtimeNext) async throws -> Ending {
        let events = RealtimeEventQueue<Event>(limit: queueLimit)
        return try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                do {
                    for try await datagram in socket.datagrams(reusing: pool) {
                        events.yield(.event(.datagram(datagram, arrival: clock.now)))
                    }
                } catch is CancellationError {
                } catch {
                    events.yield(.failed(error))
                }
            }
            defer {
                events.finish()
                group.cancelAll()
            }
            var armed = ArmedDeadlines()
            events.yield(.event(.wake))
            while let item = await events.next() {
                let event: RealtimeEvent
                switch item {
                case .event(let next): event = next
                case .failed(let error): throw error
                }
                let now = clock.now
                armed.expire(at: now)
                switch try await handle(event, now) {
                case .stop:
                    return .stopped
                case .wait(until: nil):
                    continue
                case .wait(until: let deadline?):
                    if deadline <= now {
                        events.yield(.event(.wake))
                    } else if armed.arm(deadline) {
                        group.addTask {
                            // A cancelled sleeper queues nothing: the loop is ending.
                            guard (try? await clock.sleep(until: deadline)) != nil else { return }
                            events.yield(.event(.wake))
                        }
                    }
                }
            }
            return .cancelled
        }
    }

    /// What the reader and sleepers queue.
    private enum Event: Sendable {
        case event(RealtimeEvent)
        case failed(any Error)
    }
}

/// The earlier of two optional times (without the array a `min()` over a literal would allocate).
func earliest(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}

/// The deadlines with a sleeper on its way, so a deadline already covered by an earlier
/// one starts none. Each one armed is earlier than all before it, and each expires when
/// its time comes, so few are ever pending.
struct ArmedDeadlines {
    private var pending: [Timestamp] = []

    init() { pending.reserveCapacity(16) }

    /// Forgets the deadlines that have come.
    mutating func expire(at now: Timestamp) {
        pending.removeAll { $0 <= now }
    }

    /// Whether `deadline` needs a sleeper of its own (no earlier or equal one is armed); if so it is now armed.
    mutating func arm(_ deadline: Timestamp) -> Bool {
        if pending.contains(where: { $0 <= deadline }) { return false }
        pending.append(deadline)
        return true
    }
}
