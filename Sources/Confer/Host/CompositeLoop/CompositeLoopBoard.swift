import Dispatch
import Synchronization
import ConferMedia

/// What the two threads of a ``CompositeLoop`` share: the output frame whose pictures are
/// being read (each source claimed by one thread at a time), and a bounded ring of composed
/// canvases waiting for the consuming thread.
///
/// All state sits behind one mutex; each side sleeps on a semaphore of its own, which the
/// other side signals after every change it might care about. A waiter always re-checks the
/// state under the lock after waking, so extra signals only cost a look, and a signal sent
/// between a check and the wait is kept by the semaphore's count, so none is lost. The ring
/// and the picture slots are arrays made once: a frame allocates nothing here.
final class CompositeLoopBoard: Sendable {
    private struct State {
        /// The output frame whose pictures are being read, if any.
        var openFrame: Int?
        /// The next source to claim in `openFrame`.
        var nextSource = 0
        /// Claimed reads not yet completed.
        var unfinished = 0
        /// What each source returned for `openFrame`.
        var pictures: [VideoFrame?]
        /// Sources read on the consuming thread.
        var readsByConsumer = 0
        var canvases: FixedRing<VideoFrame>
        /// The producer has delivered its last canvas.
        var finished = false
        /// The first error either side hit; it stops the work.
        var failure: (any Error)?
        /// The consumer stopped: the producer should too.
        var cancelled = false

        var stopping: Bool { cancelled || failure != nil }
    }

    /// What the consuming thread should do next.
    enum ConsumerStep {
        /// Consume this canvas (the next in output order).
        case consume(VideoFrame)
        /// Read `source` for output frame `frame`, then ``complete(source:with:byConsumer:)``.
        case read(source: Int, frame: Int)
        /// Nothing to do yet: ``waitForConsumerWork()`` and ask again.
        case wait
        /// The producer is done; rethrow `failure` if there is one.
        case end(failure: (any Error)?)
    }

    private let state: Mutex<State>
    private let consumerWake = DispatchSemaphore(value: 0)
    private let producerWake = DispatchSemaphore(value: 0)
    /// Composed canvases that may wait for the consumer.
    let capacity: Int
    /// Sources per output frame.
    let sourceCount: Int

    init(sourceCount: Int, capacity: Int) {
        self.sourceCount = sourceCount
        self.capacity = max(1, capacity)
        state = Mutex(State(pictures: [VideoFrame?](repeating: nil, count: sourceCount),
                            canvases: FixedRing(capacity: capacity)))
    }

    // MARK: Reading pictures (both threads)

    /// Opens the reads of output `frame` (producer); the consumer may now claim some.
    func open(frame: Int) {
        state.withLock { state in
            state.openFrame = frame
            state.nextSource = 0
            state.unfinished = 0
        }
        consumerWake.signal()
    }

    /// The next unclaimed source of the open frame, claimed for the caller; nil when every
    /// source is claimed or the work is stopping.
    func claim() -> Int? {
        state.withLock { state in Self.claim(&state) }
    }

    private static func claim(_ state: inout State) -> Int? {
        guard !state.stopping, state.openFrame != nil, state.nextSource < state.pictures.count else { return nil }
        defer { state.nextSource += 1 }
        state.unfinished += 1
        return state.nextSource
    }

    /// Records what reading `source` gave. A failure stops the loop.
    func complete(source: Int, with result: Result<VideoFrame?, any Error>, byConsumer: Bool) {
        state.withLock { state in
            state.unfinished -= 1
            switch result {
            case .success(let picture): state.pictures[source] = picture
            case .failure(let error): if state.failure == nil { state.failure = error }
            }
            if byConsumer { state.readsByConsumer += 1 }
        }
        if byConsumer { producerWake.signal() } else { consumerWake.signal() }
    }

    /// Waits until every claimed read of the open frame has completed (producer), then moves
    /// the pictures into `pictures` (same count; its old contents go back for reuse) and
    /// closes the frame. Returns the error that stops the loop, if any; `waited` grows by the
    /// time spent waiting for the consumer's reads.
    func collectPictures(into pictures: inout [VideoFrame?], waited: inout Duration) -> (any Error)? {
        while true {
            let done = state.withLock { state -> Bool in
                guard state.unfinished == 0 else { return false }
                swap(&state.pictures, &pictures)
                for i in state.pictures.indices { state.pictures[i] = nil }
                state.openFrame = nil
                return true
            }
            if done { break }
            let before = ContinuousClock.now
            producerWake.wait()
            waited += ContinuousClock.now - before
        }
        return state.withLock { state in state.failure }
    }

    // MARK: Handing canvases over

    /// Queues `canvas` for the consumer, waiting for room (producer); false when the work is
    /// stopping. `waited` grows by the time spent waiting for room.
    func put(_ canvas: VideoFrame, waited: inout Duration) -> Bool {
        while true {
            let outcome = state.withLock { state -> Bool? in
                if state.stopping { return false }
                return state.canvases.append(canvas) ? true : nil
            }
            if let outcome {
                if outcome { consumerWake.signal() }
                return outcome
            }
            let before = ContinuousClock.now
            producerWake.wait()
            waited += ContinuousClock.now - before
        }
    }

    /// Ends the work (producer), with `error` if it failed; the consumer sees the end after
    /// the canvases already queued.
    func finish(throwing error: (any Error)? = nil) {
        state.withLock { state in
            state.finished = true
            if let error, state.failure == nil { state.failure = error }
        }
        consumerWake.signal()
    }

    /// What the consumer should do next: a queued canvas first (encoding is the critical
    /// path), else a read it can take off the producer, else wait or stop.
    func consumerStep() -> ConsumerStep {
        let step = state.withLock { state -> ConsumerStep in
            if let canvas = state.canvases.popFirst() { return .consume(canvas) }
            if let source = Self.claim(&state), let frame = state.openFrame {
                return .read(source: source, frame: frame)
            }
            if state.finished { return .end(failure: state.failure) }
            return .wait
        }
        // A taken canvas frees room in the ring.
        if case .consume = step { producerWake.signal() }
        return step
    }

    /// Sleeps until the producer has changed something.
    func waitForConsumerWork() {
        consumerWake.wait()
    }

    /// Stops the producer (consumer): its next put or claim fails, and queued canvases are
    /// dropped so their buffers return to the pool.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.canvases.removeAll()
        }
        producerWake.signal()
    }

    /// Sources read on the consuming thread so far.
    var readsByConsumer: Int { state.withLock { $0.readsByConsumer } }
}
