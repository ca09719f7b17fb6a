package import Dispatch

extension DispatchSemaphore {
    /// A counting semaphore holding `count` permits, made at zero and signalled up rather
    /// than made with the count: libdispatch traps when a semaphore is freed below the value
    /// it was made with, which a hand-off that fails or is cancelled leaves it at (its
    /// permits are never all given back).
    package static func counting(_ count: Int) -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        for _ in 0 ..< count { semaphore.signal() }
        return semaphore
    }
}
