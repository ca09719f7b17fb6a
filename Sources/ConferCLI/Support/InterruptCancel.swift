import Dispatch
import Foundation

extension Task {
    /// Cancels this task on Ctrl-C (SIGINT) or SIGTERM until the returned watch is cancelled,
    /// so a command can end its work cleanly and still print what it measured — `timeout`,
    /// systemd and container runtimes stop a process with SIGTERM. A second signal ends the
    /// process at once.
    func cancelledOnInterrupt() -> InterruptWatch {
        InterruptWatch { self.cancel() }
    }
}

/// SIGINT and SIGTERM turned into a call, while it lasts (see `Task.cancelledOnInterrupt()`).
final class InterruptWatch {
    private let sources: [any DispatchSourceSignal]

    /// Calls `action` on the first SIGINT or SIGTERM; after it the default handling is back.
    init(_ action: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
                action()
            }
            source.resume()
            return source
        }
    }

    /// Stops watching (the signals stay ignored: the command is about to print and exit).
    func cancel() {
        for source in sources { source.cancel() }
    }
}
