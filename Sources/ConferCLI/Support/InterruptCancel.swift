import Dispatch
import Foundation

extension Task {
    /// Cancels this task on Ctrl-C (SIGINT) until the returned source is cancelled, so a
    /// command can end its work cleanly and still print what it measured.
    func cancelledOnInterrupt() -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { self.cancel() }
        interrupt.resume()
        return interrupt
    }
}
