import Foundation

/// Standard input as lines, for a command that takes what a person types while it runs.
/// A thread of its own reads, since a read blocks until a line comes and must not hold one of
/// the cooperative pool's few threads; the stream finishes at end of input (Ctrl-D, or the end
/// of a piped script). The thread stays blocked in its read when the command is done first,
/// which costs nothing as the process is about to exit.
enum StandardInputLines {
    /// The lines from now on, without their line ends.
    static func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        thread.name = "confer.stdin"
        thread.start()
        return stream
    }
}
