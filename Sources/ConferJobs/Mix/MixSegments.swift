import Dispatch
import Synchronization
import ConferCodecs
import ConferMedia

/// Segment-parallel encoding: a mix with periodic keyframes is cut into segments that each
/// start with a keyframe, and each of several workers composes and encodes its own
/// segments with a one-thread encoder, while the calling thread writes the segments in order.
///
/// Why: libvpx's VP8 encoder is the bottleneck of a mix, and its own threads cannot use two
/// cores fully. They split a frame's macroblock rows, but the loop filter (and, at the speed
/// it settles on for `cpu-used 8` on this machine, the search for the filter's level, which
/// filters the whole frame several times) runs on one thread while the other waits for the
/// filtered frame to predict from: measured (`Benchmarks/peers/vp8-threads.sh`), one encoder
/// with two threads does 1.3 × the frames of one thread, two one-thread encoders side by
/// side 1.9–2 ×. Rate control restarts at each segment's keyframe.
///
/// Segments are as long as each other, and there are as many for every worker, so the
/// workers finish together whatever the mix's length: the keyframe interval is the most
/// frames between keyframes, and the segments are the fewest equal pieces within it that
/// the workers share evenly. A 300-frame mix on two cores is four segments of 75, a
/// 180-frame one two of 90, a 120-frame one two of 60 (one keyframe more than a single
/// encoder would make; cutting at the interval instead, 128 + 52 frames, left one worker
/// idle for most of the mix). When the length is not known in advance, segments are the
/// keyframe interval long.
///
/// With audio, the whole audio mix is made first (it costs little next to the video) and
/// every worker replays its speaker highlight, which drives the highlight border and the
/// speaker-led layouts, frame by frame as a live mix would have set it.
///
/// Worker `w` of `W` takes segments `w`, `w + W`, `w + 2W`…: its composer reads every input
/// once, front to back, skipping (reading without composing) the frames of the others'
/// segments. For compressed inputs that means each input is decoded once per worker; for
/// Y4M the skip is a read. A worker holds at most two segments of compressed frames (one
/// waiting to be written, one being made), so memory stays bounded however long the mix.
enum MixSegments {
    /// How a mix is cut: `workers` threads, each segment `segmentFrames` long.
    struct Plan: Equatable {
        /// Worker threads, each with a composer and a one-thread encoder.
        var workers: Int
        /// Frames per segment (the last may be shorter): the distance between keyframes.
        var segmentFrames: Int
    }

    /// How to cut a mix, or nil when it should be one stream: segments need an encoded
    /// output, a keyframe interval, an automatic thread count (an explicit `--threads` asks
    /// for one encoder with that many), the pipelined mode, and room for two segments of
    /// at least ``minimumSegmentFrames`` (or of the interval, if shorter) on two cores.
    static func plan(options: MixOptions, codec: Codec?, expectedFrames: Int?, cores: Int) -> Plan? {
        guard options.segmented, options.pipelined, codec != nil, options.threads == nil,
              options.keyframeInterval > 0 else { return nil }
        let interval = options.keyframeInterval
        let available = min(cores, maximumWorkers)
        guard let frames = expectedFrames else {
            return available >= 2 ? Plan(workers: available, segmentFrames: interval) : nil
        }
        // Segments the interval requires, and the most the minimum length allows.
        let required = (frames + interval - 1) / interval
        let allowed = frames / min(minimumSegmentFrames, interval)
        let workers = min(available, max(required, allowed))
        guard workers >= 2 else { return nil }
        // The fewest segments within the interval that the workers share evenly.
        let segments = (required + workers - 1) / workers * workers
        return Plan(workers: workers, segmentFrames: (frames + segments - 1) / segments)
    }

    /// Worker threads for a mix (0 for one stream); see ``plan(options:codec:expectedFrames:cores:)``.
    static func workers(options: MixOptions, codec: Codec?, expectedFrames: Int?, cores: Int) -> Int {
        plan(options: options, codec: codec, expectedFrames: expectedFrames, cores: cores)?.workers ?? 0
    }

    /// The shortest segment a mix is cut into for the workers' sake: each costs a keyframe,
    /// and at 30 fps 48 frames (1.6 s) keep that within what rate control absorbs.
    static let minimumSegmentFrames = 48

    /// At most this many workers: each holds an encoder and a composer (tens of MB at 720p).
    static let maximumWorkers = 8

    /// Compressed frames a worker can hold: one segment waiting to be written, one being made.
    static let buffersPerWorker = 2
}

/// One segment's encoded frames, reused from segment to segment.
struct MixSegment: Sendable {
    /// The segment's place in the output (its first frame is `index × segment length`).
    var index = 0
    /// The encoded frames; only the first ``count`` belong to this segment (the rest are
    /// buffers kept from earlier segments).
    var frames: [EncodedFrame] = []
    /// Frames of this segment in ``frames``.
    var count = 0
    /// Canvases rate control dropped.
    var dropped = 0
    /// Whether the output ends in or right after this segment (it may be empty).
    var isLast = false
    /// The worker that made it, which gets the buffer back once it is written.
    var worker = 0
}

/// Where workers hand in segments and the writer hands buffers back; also carries the first
/// failure and the writer's cancellation.
final class MixSegmentBoard: Sendable {
    private struct State {
        var finished: [Int: MixSegment] = [:]
        var free: [[MixSegment]]
        var failure: (any Error)?
        var cancelled = false
    }

    private let state: Mutex<State>
    /// Signalled once per segment handed in, and on a failure.
    private let delivered = DispatchSemaphore(value: 0)
    /// Signalled once per buffer returned to each worker, and for every worker on cancel.
    private let returned: [DispatchSemaphore]

    init(workers: Int) {
        let buffers = (0..<workers).map { worker in
            [MixSegment](repeating: MixSegment(worker: worker), count: MixSegments.buffersPerWorker)
        }
        state = Mutex(State(free: buffers))
        // A failed or cancelled mix never gives all its buffers back: see `counting`.
        returned = (0..<workers).map { _ in .counting(MixSegments.buffersPerWorker) }
    }

    /// A buffer for `worker`'s next segment, waiting until one is written; nil once cancelled.
    func takeBuffer(worker: Int) -> MixSegment? {
        returned[worker].wait()
        return state.withLock { state in
            state.cancelled ? nil : state.free[worker].popLast()
        }
    }

    /// Hands in a finished segment.
    func deliver(_ segment: MixSegment) {
        state.withLock { $0.finished[segment.index] = segment }
        delivered.signal()
    }

    /// Ends the mix with `error` (the first failure wins).
    func fail(_ error: any Error) {
        state.withLock { state in
            if state.failure == nil { state.failure = error }
        }
        delivered.signal()
    }

    /// Whether the writer has stopped the mix.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Segment `index` once it is handed in (waiting for it), or the first failure.
    func waitForSegment(_ index: Int) throws -> MixSegment {
        while true {
            let (segment, failure) = state.withLock { state in
                (state.finished.removeValue(forKey: index), state.failure)
            }
            if let failure { throw failure }
            if let segment { return segment }
            delivered.wait()
        }
    }

    /// Gives a written segment's buffer back to its worker.
    func giveBack(_ segment: MixSegment) {
        state.withLock { $0.free[segment.worker].append(segment) }
        returned[segment.worker].signal()
    }

    /// Stops every worker: waiting or next ``takeBuffer(worker:)`` calls return nil.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.finished.removeAll()
        }
        for semaphore in returned { semaphore.signal() }
    }
}

/// Counts segment workers as their threads start and stop.
///
/// Why: a mix that fails must stop every worker before it returns its error, and nothing
/// else a caller can see tells whether one is still running. A mix counts into the count
/// bound to ``current`` on its task (tests bind one); otherwise it counts nothing.
final class MixSegmentWorkerCount: Sendable {
    /// The count the mixes run on this task report to; nil (the default) for none.
    @TaskLocal static var current: MixSegmentWorkerCount?

    private let counts = Mutex((started: 0, running: 0))

    /// A count at zero.
    init() {}

    /// Workers started.
    var started: Int { counts.withLock { $0.started } }
    /// Workers started whose threads have not yet finished their work.
    var running: Int { counts.withLock { $0.running } }

    fileprivate func workerStarted() {
        counts.withLock { counts in
            counts.started += 1
            counts.running += 1
        }
    }

    fileprivate func workerStopped() {
        counts.withLock { $0.running -= 1 }
    }
}

/// One worker of a segment-parallel mix: a thread with its own composer that composes and
/// encodes segments `worker`, `worker + workers`… and hands them to the board.
final class MixSegmentWorker: @unchecked Sendable {
    // Sendable: `composer` and `waitSeconds` are touched only by the worker's block between
    // `start()` and its `done.signal()`, and by the caller only after `join()` has waited for
    // that signal; the semaphore orders the two. The encoder is made and used on the worker.
    let composer: MixComposer
    private let board: MixSegmentBoard
    private let worker: Int
    private let workers: Int
    private let segmentFrames: Int
    private let codec: Codec
    private let settings: VideoEncoderSettings
    private let done = DispatchSemaphore(value: 0)
    private let queue: DispatchQueue
    private let count: MixSegmentWorkerCount?
    private var joined = false
    /// Seconds the worker waited for a buffer (the writer was behind); read after ``join()``.
    private(set) var waitSeconds = 0.0

    /// Worker `worker` of `workers`, cutting segments of `segmentFrames` frames and encoding
    /// each with a fresh `codec` encoder of `settings` (whose first frame is a keyframe), and
    /// counting its thread's start and end into `count`.
    init(composer: MixComposer, board: MixSegmentBoard, worker: Int, workers: Int, segmentFrames: Int,
         codec: Codec, settings: VideoEncoderSettings, count: MixSegmentWorkerCount? = nil) {
        self.composer = composer
        self.board = board
        self.worker = worker
        self.workers = workers
        self.segmentFrames = segmentFrames
        self.codec = codec
        self.settings = settings
        self.count = count
        queue = DispatchQueue(label: "confer.mix.segment.\(worker)")
    }

    /// Starts the worker's thread.
    func start() {
        // Counted here rather than on the thread, so the count never misses a worker that
        // has been started but not yet scheduled.
        count?.workerStarted()
        queue.async { [self] in
            do {
                try work()
            } catch {
                board.fail(error)
            }
            // Before the signal: once ``join()`` returns, the count has seen this worker stop.
            count?.workerStopped()
            done.signal()
        }
    }

    private func work() throws {
        var waited = Duration.zero
        defer { waitSeconds = waited.seconds }
        var index = worker
        while !board.isCancelled {
            let reachable = try composer.skip(to: index * segmentFrames)
            let before = ContinuousClock.now
            guard var segment = board.takeBuffer(worker: worker) else { return }
            waited += ContinuousClock.now - before
            segment.index = index
            segment.count = 0
            segment.dropped = 0
            segment.isLast = !reachable
            if reachable { try encode(into: &segment) }
            board.deliver(segment)
            if segment.isLast { return }
            index += workers
        }
    }

    /// Composes and encodes one segment's frames with a fresh encoder.
    private func encode(into segment: inout MixSegment) throws {
        let encoder = try AnyVideoEncoder(codec: codec, settings: settings)
        for _ in 0..<segmentFrames {
            guard let canvas = try composer.next() else {
                segment.isLast = true
                return
            }
            if segment.frames.count == segment.count { segment.frames.append(EncodedFrame(codec: codec)) }
            if try encoder.encode(canvas, into: &segment.frames[segment.count]) {
                segment.count += 1
            } else {
                segment.dropped += 1
            }
            if board.isCancelled { return }
        }
    }

    /// Waits until the worker has stopped.
    func join() {
        guard !joined else { return }
        done.wait()
        joined = true
    }
}

extension MixJob {
    /// What a segment-parallel mix did.
    struct SegmentedRun {
        /// Every worker's composer, `first` first.
        var composers: [MixComposer]
        /// Segments written.
        var segments: Int
        /// Seconds the workers waited for buffers (the writer was behind), summed.
        var producerWait: Double
        /// Seconds this thread waited for the next segment.
        var consumerWait: Double
    }

    /// Composes and encodes on `workers` worker threads (`first` is the first worker's
    /// composer; the others open the inputs here, so bad input fails before any work
    /// starts), each highlighting `speakers`, writing their segments in order to `sink` on
    /// this thread.
    static func runSegmented(inputs: [String], options: MixOptions, codec: Codec, plan: MixSegments.Plan,
                             first: MixComposer, speakers: MixComposer.Speakers, sink: MixSink, total: Int?,
                             progress: (Int, Int?) -> Void) throws -> SegmentedRun {
        var settings = sink.encoderSettings
        settings.threads = 1
        // Each segment's encoder makes one keyframe, its first; the segments are cut at the interval.
        settings.keyframeInterval = 0
        let count = plan.workers
        var composers = [first]
        for _ in 1..<count { composers.append(try MixComposer(inputs: inputs, options: options)) }
        for composer in composers { composer.speakers = speakers }
        let board = MixSegmentBoard(workers: count)
        let workerCount = MixSegmentWorkerCount.current
        let workers = composers.enumerated().map { worker, composer in
            MixSegmentWorker(composer: composer, board: board, worker: worker, workers: count,
                             segmentFrames: plan.segmentFrames, codec: codec, settings: settings, count: workerCount)
        }
        for worker in workers { worker.start() }
        var consumerWait = Duration.zero
        var written = 0
        do {
            var index = 0
            while true {
                let before = ContinuousClock.now
                let segment = try board.waitForSegment(index)
                consumerWait += ContinuousClock.now - before
                for frame in segment.frames.prefix(segment.count) {
                    try sink.write(encoded: frame)
                    progress(sink.framesIn, total)
                }
                sink.countDropped(segment.dropped)
                if segment.count + segment.dropped > 0 { written += 1 }
                board.giveBack(segment)
                if segment.isLast { break }
                index += 1
            }
        } catch {
            board.cancel()
            for worker in workers { worker.join() }
            throw error
        }
        board.cancel()
        for worker in workers { worker.join() }
        return SegmentedRun(composers: composers, segments: written,
                            producerWait: workers.reduce(0) { $0 + $1.waitSeconds }, consumerWait: consumerWait.seconds)
    }
}
