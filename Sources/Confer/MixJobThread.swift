import Dispatch
import ConferMedia

/// The reading-and-compositing side of a pipelined mix: a thread that asks the composer for
/// canvas after canvas and queues each on the handoff until the inputs end, the consumer
/// cancels, or reading fails (the error travels through the handoff).
///
/// A dedicated Dispatch queue rather than a Swift task: the producer blocks on file reads
/// and on the handoff's semaphore, which must not tie up a thread of the cooperative pool
/// (on two cores there are only two).
final class MixProducerThread: @unchecked Sendable {
    // Sendable: `composer` (not thread-safe) is touched only by the producer block between
    // `start()` and its final `done.signal()`, and by the caller only after `join()` has
    // waited for that signal; the semaphore orders the two, so no access overlaps.
    // `waitSeconds` follows the same rule. `handoff` is Sendable by itself.
    private let composer: MixComposer
    private let handoff: MixHandoff<VideoFrame>
    private let done = DispatchSemaphore(value: 0)
    private let queue = DispatchQueue(label: "confer.mix.producer", qos: .userInitiated)
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
