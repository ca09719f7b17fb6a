import ConferMedia

/// Events per second over the last second (frames sent, frames received), from a fixed
/// ring of event times: counting allocates nothing, and at most ``capacity`` events a
/// second are told apart (far above any frame rate in use).
struct HostPipelineRateMeter {
    static let capacity = 256
    static let window = TimeDelta.seconds(1)
    private var times: [Timestamp]
    private var next = 0
    private var count = 0

    init() { times = Array(repeating: .zero, count: Self.capacity) }

    /// Notes an event at `time` (times must not decrease).
    mutating func record(at time: Timestamp) {
        times[next] = time
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Events per second in the second up to `now`.
    func rate(at now: Timestamp) -> Double {
        var inWindow = 0
        var index = next
        for _ in 0 ..< count {
            index = (index + Self.capacity - 1) % Self.capacity
            guard now - times[index] < Self.window else { break }
            inWindow += 1
        }
        return Double(inWindow) / Self.window.seconds
    }
}
