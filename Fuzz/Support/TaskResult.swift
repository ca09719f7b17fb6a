import Dispatch
import Synchronization

/// The value of a task started on Swift's concurrency pool, for libFuzzer's thread (and the
/// seed generator's) to wait for: the targets' entry points are synchronous, while the code
/// they drive (AdminClient, TokenIssuer) is async.
public final class TaskResult<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    /// Starts `body` at once; ``wait(seconds:_:)`` takes its value.
    public init(_ body: @escaping @Sendable () async -> T) {
        Task { [self] in
            let result = await body()
            value.withLock { $0 = result }
            ready.signal()
        }
    }

    /// The task's value; traps, naming `what`, when none came within `seconds`: a hang is a
    /// finding too.
    public func wait(seconds: Int = 10, _ what: @autoclosure () -> String = "a task") -> T {
        // fatalError, not precondition: Fuzz/run builds -O, where precondition drops its message.
        if ready.wait(timeout: .now() + .seconds(seconds)) == .timedOut { fatalError("\(what()) did not end within \(seconds) s") }
        return value.withLock { $0 }!
    }
}

/// Runs `body` on the concurrency pool and waits for its value (see ``TaskResult``).
public func awaited<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    TaskResult(body).wait()
}
