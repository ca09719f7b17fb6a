import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import ConferMedia

/// The reading-and-compositing side of a pipelined mix: a thread that asks the composer for
/// canvas after canvas and queues each on the handoff until the inputs end, the consumer
/// cancels, or reading fails (the error travels through the handoff).
///
/// A dedicated Dispatch queue rather than a Swift task: the producer blocks on file reads
/// and on the handoff's semaphore, which must not tie up a thread of the cooperative pool
/// (on two cores there are only two).
///
/// The producer runs at a lower priority than the encoder (nice ``niceness``): it has a
/// queue of slack and needs a few per cent of a core, while the encoder is the critical
/// path, so when both want a core the encoder (and libvpx's own threads) should get it.
/// Measured with one encoder thread on the loaded two-core machine: nice 5 or 10 mixed 7 %
/// faster than Dispatch's default for the queue (nice −2); it never starved the encoder.
final class MixProducerThread: @unchecked Sendable {
    // Sendable: `composer` (not thread-safe) is touched only by the producer block between
    // `start()` and its final `done.signal()`, and by the caller only after `join()` has
    // waited for that signal; the semaphore orders the two, so no access overlaps.
    // `waitSeconds` follows the same rule. `handoff` is Sendable by itself.
    private let composer: MixComposer
    private let handoff: MixHandoff<VideoFrame>
    private let done = DispatchSemaphore(value: 0)
    private let queue = DispatchQueue(label: "confer.mix.producer")
    /// The producer thread's niceness (Linux; 0 is the encoder's).
    static let niceness: Int32 = 5
    private var joined = false
    /// Seconds the producer waited for a free slot; read after ``join()``.
    private(set) var waitSeconds = 0.0

    init(composer: MixComposer, handoff: MixHandoff<VideoFrame>) {
        self.composer = composer
        self.handoff = handoff
    }

    /// Starts producing on the producer thread.
    func start() {
        queue.async { [self] in
            #if os(Linux)
            // `who` 0 is the calling thread: Linux keeps a niceness per thread. Failing to
            // lower it only costs a little speed, so the result is not checked.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            #endif
            var waited = Duration.zero
            do {
                var cancelled = false
                while let frame = try composer.next() {
                    let before = ContinuousClock.now
                    let accepted = handoff.put(frame)
                    waited += ContinuousClock.now - before
                    if !accepted { cancelled = true; break }
                }
                // The consumer failed: the job is over, the rest of the audio is not wanted.
                if !cancelled { try composer.finishAudio() }
                handoff.finish()
            } catch {
                handoff.finish(throwing: error)
            }
            waitSeconds = waited.seconds
            done.signal()
        }
    }

    /// Waits until the producer has stopped.
    func join() {
        guard !joined else { return }
        done.wait()
        joined = true
    }
}
