public import ConferMedia

extension FramePacer {
    /// Refreshes at every deadline of the schedule on `clock` until `end` (or until the
    /// task is cancelled): the wall clock in the CLI, a ``ManualClock`` in tests.
    ///
    /// Before each refresh `beforeRefresh` gets the deadline (to submit frames due by
    /// then); after it `afterRefresh` gets the result. Each refresh is made *at its
    /// deadline*, so a late wake-up changes nothing but latency: missed refreshes are made
    /// one by one to catch up, unless the loop fell more than a second behind, when it
    /// skips to the current refresh. Runs on the caller's actor, so the pacer and the
    /// closures never cross an isolation boundary.
    public func run(clock: any MediaClock, until end: Timestamp? = nil,
                    isolation: isolated (any Actor)? = #isolation,
                    beforeRefresh: (Timestamp) throws -> Void = { _ in },
                    afterRefresh: (RefreshResult) throws -> Void = { _ in }) async throws {
        let start = clock.now
        var tick = schedule.tick(at: start)
        if schedule.deadline(ofTick: tick) < start { tick += 1 }
        if let next = nextTick { tick = max(tick, next) }
        while true {
            try Task.checkCancellation()
            let deadline = schedule.deadline(ofTick: tick)
            if let end, deadline > end { return }
            try await clock.sleep(until: deadline)
            try beforeRefresh(deadline)
            let result = refresh(at: deadline)
            try afterRefresh(result)
            let current = schedule.tick(at: clock.now)
            tick = current - tick > Int64(schedule.rate) ? current : tick + 1
        }
    }
}
