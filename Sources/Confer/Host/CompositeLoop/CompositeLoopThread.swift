#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The producer thread of a ``CompositeLoop`` run: a plain POSIX thread, started by the
/// calling thread and joined by it.
///
/// Not a Dispatch queue (as `confer mix` uses): a thread made with `pthread_create`
/// inherits its creator's scheduling — niceness, real-time policy, CPU affinity — so the
/// producer always runs at the consumer's priority. A Dispatch worker runs at libdispatch's
/// own priority whatever the caller's (nice −2 here, as `MixProducerThread` notes), and the
/// two sides then compete unequally: measured with the caller at nice −10 on the loaded
/// two-core machine, the caller ended up doing 40–80 % of the decodes itself, against 0–36 %
/// with this thread. Costs one thread start per run, not per frame.
struct CompositeLoopThread: ~Copyable {
    /// What the thread runs; handed to it through `pthread_create`'s context pointer.
    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread; nil if the system refused one (the caller then runs
    /// the work itself).
    init?(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let job = Unmanaged<Job>.fromOpaque(context).takeRetainedValue()
            #else
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            #endif
            job.body()
            return nil
        }, context)
        #if canImport(Darwin)
        guard status == 0, let thread else {
            Unmanaged<Job>.fromOpaque(context).release()
            return nil
        }
        #else
        guard status == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return nil
        }
        #endif
        self.thread = thread
    }

    /// Waits for the thread to finish; everything it did happens before this returns.
    consuming func join() {
        _ = pthread_join(thread, nil)
    }
}
