import Foundation

/// Ctrl-C and SIGTERM as an event a live command can wait for, so it leaves the meeting and
/// writes its report instead of dying mid-write.
enum InterruptSignal {
    /// Returns when SIGINT or SIGTERM arrives, or the task is cancelled; either way the
    /// default handling is back after it, so a second Ctrl-C ends the process at once.
    static func wait() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let watch = InterruptWatch { continuation.yield() }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        watch.cancel()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
