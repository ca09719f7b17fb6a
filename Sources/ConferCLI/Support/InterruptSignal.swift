import Dispatch
import Foundation

/// Ctrl-C and SIGTERM as an event a live command can wait for, so it leaves the meeting and
/// writes its report instead of dying mid-write.
enum InterruptSignal {
    /// Returns when SIGINT or SIGTERM arrives (after which the default handling is back, so
    /// a second Ctrl-C ends the process at once).
    static func wait() async {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
