import ConferMedia

/// When a live endpoint's once-a-second report is due: whole seconds from its start, one
/// report however many seconds a stalled loop missed, then on at the next whole second.
struct SecondTicker {
    /// The time the next report is due, or nil before the start.
    private(set) var next: Timestamp?
    /// Seconds reported so far.
    private(set) var count = 0

    /// Starts counting at `time`, unless already started.
    mutating func start(at time: Timestamp) {
        if next == nil { next = time + .seconds(1) }
    }

    /// Whether a report is due at `now`; if so it counts as made.
    mutating func isDue(at now: Timestamp) -> Bool {
        guard var due = next, now >= due else { return false }
        while due <= now { due += .seconds(1) }
        next = due
        count += 1
        return true
    }
}
