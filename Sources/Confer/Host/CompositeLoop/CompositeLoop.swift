public import ConferMedia
public import ConferMixer

/// The host's compositing step (``HostComposer``: read (decode) every participant's next
/// picture, lay them out, compose) driven on two cores, handing each canvas to the caller
/// (who encodes it once). ``HostPipeline`` runs the same step inline, one frame per poll.
///
/// With two threads, a producer thread reads the sources and composes frame k + 1 while the
/// calling thread consumes (encodes) frame k, as `confer mix` overlaps compositing and
/// encoding. Reading N sources is the part that grows with the room, so the calling thread
/// also takes reads off the producer whenever it has no canvas to consume: each source of a
/// frame is claimed by whichever thread is free. When encoding is the bottleneck the loop
/// runs at the encoder's speed; when decoding is, both threads decode; and no third thread
/// competes for the two cores (measured: 16 participants 1.6–1.8× faster than on one
/// thread, Benchmarks/README.md "Host scale").
///
/// `consume` may block (a live host waits for the frame's send time there): the producer
/// then runs at most ``queueDepth`` canvases ahead. In steady state a frame allocates
/// nothing in the loop itself: canvases come from the compositor's pool (give it
/// ``queueDepth`` + 2 buffers: queued, being consumed, being composed), and the picture
/// slots and the canvas ring are made once. Each ``run(frames:consume:)`` with two threads
/// starts its producer thread (a few small allocations per run, not per frame); the thread
/// inherits the calling thread's scheduling, so both sides run at the caller's priority.
public final class CompositeLoop {
    /// Counters since the loop was made.
    public struct Statistics: Hashable, Sendable, Codable {
        /// Canvases composed and consumed.
        public var frames = 0
        /// Source reads (one per source per frame).
        public var reads = 0
        /// Of those, reads done on the calling thread while it had nothing to consume.
        public var readsOnConsumerThread = 0
        /// Seconds the calling thread waited for a canvas or a read to take.
        public var consumerWaitSeconds = 0.0
        /// Seconds the producer waited for reads the calling thread had claimed.
        public var producerWaitForReadsSeconds = 0.0
        /// Seconds the producer waited for room in the queue (the consumer was the bottleneck).
        public var producerWaitForRoomSeconds = 0.0

        /// All counters at zero.
        public init() {}
    }

    /// The compositor, with the state the frames so far left in it; read it between runs.
    public var compositor: VideoCompositor { producer.composer.compositor }
    /// Who each source is, in source order.
    public let participants: [ParticipantID]
    /// Output frames per second: frame k is composed at k / frameRate.
    public let frameRate: Double
    /// 1: everything on the calling thread, in order; 2: a producer thread beside it.
    public let threads: Int
    /// Composed canvases that may wait for the consumer (two threads only).
    public let queueDepth: Int
    /// Counters since the loop was made.
    public private(set) var statistics = Statistics()
    /// The index of the next output frame.
    public private(set) var nextFrame = 0

    private let producer: CompositeLoopProducer

    /// A loop over `sources` (each shown as its participant, added to `compositor` if new).
    ///
    /// - Parameters:
    ///   - threads: 1 or 2 (values above 2 are treated as 2: the loop's work splits into
    ///     two sides).
    ///   - queueDepth: canvases that may wait for the consumer; nil takes as many as the
    ///     compositor's pool leaves free (its capacity less 2, at least 1).
    public init(compositor: VideoCompositor, sources: [(participant: ParticipantID, source: any CompositeSource)],
                frameRate: Double = 30, threads: Int = 2, queueDepth: Int? = nil) {
        precondition(frameRate > 0, "a frame rate must be positive")
        var composer = HostComposer(compositor: compositor)
        for entry in sources { composer.add(entry.participant, source: entry.source) }
        participants = sources.map(\.participant)
        self.frameRate = frameRate
        self.threads = min(2, max(1, threads))
        self.queueDepth = max(1, queueDepth ?? compositor.configuration.poolCapacity - 2)
        producer = CompositeLoopProducer(composer: composer)
    }

    /// Composes the next `frames` output frames, calling `consume` on the calling thread
    /// with each canvas in order. Rethrows the first error of a source or of `consume`;
    /// the loop then stops: canvases already composed but not consumed are dropped, and a
    /// later run continues after the frames already begun, so a source never sees a frame
    /// index twice.
    public func run(frames: Int, consume: (VideoFrame) throws -> Void) throws {
        guard frames > 0 else { return }
        let first = nextFrame
        let range = first..<(first + frames)
        if threads == 1 {
            try runSerially(range, consume: consume)
        } else {
            try runInParallel(range, consume: consume)
        }
    }

    /// The time of output frame `index`.
    public func time(ofFrame index: Int) -> Timestamp {
        Self.time(ofFrame: index, frameRate: frameRate)
    }

    static func time(ofFrame index: Int, frameRate: Double) -> Timestamp {
        Timestamp(microseconds: Int64((Double(index) * 1_000_000 / frameRate).rounded()))
    }

    private func runSerially(_ range: Range<Int>, consume: (VideoFrame) throws -> Void) throws {
        for frame in range {
            nextFrame = frame + 1
            let canvas = try producer.composer.compose(frame: frame, at: time(ofFrame: frame))
            statistics.reads += participants.count
            try consume(canvas)
            statistics.frames += 1
        }
    }

    private func runInParallel(_ range: Range<Int>, consume: (VideoFrame) throws -> Void) throws {
        let board = CompositeLoopBoard(sourceCount: participants.count, capacity: queueDepth)
        let producer = self.producer
        // Read before the producer starts mutating its composer; the array is never changed.
        let sources = producer.composer.sources
        let frameRate = self.frameRate
        guard let thread = CompositeLoopThread({ producer.produce(range, frameRate: frameRate, board: board) }) else {
            // No thread to be had: the same frames, in order, on this one.
            return try runSerially(range, consume: consume)
        }
        var waited = Duration.zero
        var consumed = 0
        defer {
            statistics.frames += consumed
            statistics.reads += producer.readsInLastRun
            statistics.readsOnConsumerThread += board.readsByConsumer
            statistics.consumerWaitSeconds += waited.seconds
            statistics.producerWaitForReadsSeconds += producer.waitedForReads.seconds
            statistics.producerWaitForRoomSeconds += producer.waitedForRoom.seconds
            nextFrame = range.lowerBound + producer.framesOpenedInLastRun
        }
        do {
            loop: while true {
                switch board.consumerStep() {
                case .consume(let canvas):
                    try consume(canvas)
                    consumed += 1
                case .read(let source, let frame):
                    let result = Result { try sources[source].picture(forFrame: frame, at: time(ofFrame: frame)) }
                    board.complete(source: source, with: result, byConsumer: true)
                case .wait:
                    let before = ContinuousClock.now
                    board.waitForConsumerWork()
                    waited += ContinuousClock.now - before
                case .end(let failure):
                    if let failure { throw failure }
                    break loop
                }
            }
        } catch {
            board.cancel()
            thread.join()
            throw error
        }
        thread.join()
    }
}

/// The producer side of a ``CompositeLoop``: the composer, driven frame after frame.
final class CompositeLoopProducer: @unchecked Sendable {
    // Sendable: during a two-thread run the producer thread is the only code that touches
    // `composer` and the wait counters; the calling thread reads them only after joining
    // that thread (the join orders the accesses), and between runs only the calling thread
    // uses them. The calling thread also calls into the sources, through a copy of the
    // composer's array taken before the thread starts, but only for a source it has claimed
    // on the board: a claim is taken and released under the board's lock, and the producer
    // neither claims a source nor starts the next frame while a claim is outstanding, so no
    // source is ever used by two threads at once and each use happens after the last one
    // finished.
    var composer: HostComposer
    private(set) var waitedForReads = Duration.zero
    private(set) var waitedForRoom = Duration.zero
    private(set) var readsInLastRun = 0
    /// Frames whose sources were (at least partly) asked for in the last run.
    private(set) var framesOpenedInLastRun = 0

    init(composer: HostComposer) {
        self.composer = composer
    }

    /// The producer thread's work for one run: frame after frame, read the sources (sharing
    /// them with the consumer through the board), compose, queue the canvas.
    func produce(_ range: Range<Int>, frameRate: Double, board: CompositeLoopBoard) {
        waitedForReads = .zero
        waitedForRoom = .zero
        readsInLastRun = 0
        framesOpenedInLastRun = 0
        for frame in range {
            let time = CompositeLoop.time(ofFrame: frame, frameRate: frameRate)
            framesOpenedInLastRun += 1
            board.open(frame: frame)
            while let source = board.claim() {
                let result = Result { try composer.picture(fromSource: source, forFrame: frame, at: time) }
                board.complete(source: source, with: result, byConsumer: false)
            }
            if let failure = board.collectPictures(into: &composer.pictures, waited: &waitedForReads) {
                composer.dropReadPictures()
                board.finish(throwing: failure)
                return
            }
            readsInLastRun += composer.sources.count
            guard board.put(composer.composeReadPictures(at: time), waited: &waitedForRoom) else {
                // The consumer stopped; it is not waiting for an end.
                return
            }
        }
        board.finish()
    }
}
