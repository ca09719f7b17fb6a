/// One view's scheduling state inside ``DrawScheduler``: its pending-frame flags, its
/// weighted-fair-queueing tags, its cap bucket and its counters. No pixels.
struct SchedulerLane: Sendable {
    /// Virtual time one draw costs at weight 1. Large enough that `unit / weight` stays
    /// nearly exact for every allowed weight; small enough that tags growing by at most
    /// `unit` per draw (≤ 1000 draws/s per view) take centuries to reach 2⁶⁴.
    static let unit: UInt64 = 1 << 24

    var settings: DrawScheduler.LaneSettings
    var stride: UInt64
    /// Refills at the view's frame-rate cap; nil when the view is uncapped.
    var cap: DrawBudget?
    var capTick: Int64?

    var hasPending = false
    /// When the view became backlogged: the older waiter wins ties.
    var pendingSequence: UInt64 = 0
    var refusedByBudget = false
    var heldByCap = false
    /// Start tag of the pending frame and finish tag of the last draw (WFQ virtual time).
    var start: UInt64 = 0
    var finish: UInt64 = 0

    var received = 0
    var drawn = 0
    var dropped = DropCounts()
    var arrivals: TickWindow
    var draws: TickWindow
    var firstTick: Int64?

    init(settings: DrawScheduler.LaneSettings, refreshRate: Int, firstTick: Int64?) throws(RenderError) {
        self.settings = settings
        stride = Self.unit / UInt64(settings.priority.weight)
        arrivals = TickWindow(span: refreshRate)
        draws = TickWindow(span: refreshRate)
        self.firstTick = firstTick
        cap = try Self.capBucket(settings.frameRateCap, refreshRate: refreshRate)
    }

    static func capBucket(_ cap: Int?, refreshRate: Int) throws(RenderError) -> DrawBudget? {
        guard let cap else { return nil }
        guard DrawScheduler.allowedFrameRateCaps.contains(cap) else {
            throw RenderError(.invalidRate, "frame-rate cap \(cap) fps is outside \(DrawScheduler.allowedFrameRateCaps)")
        }
        return try DrawBudget(drawsPerSecond: cap, refreshRate: refreshRate)
    }

    /// The finish tag the pending frame would get: WFQ serves the smallest.
    var pendingFinish: UInt64 { start &+ stride }

    /// Whether the cap lets the view draw at `tick`, refilling its bucket first.
    mutating func capAllows(at tick: Int64) -> Bool {
        guard var bucket = cap else { return true }
        if let last = capTick { bucket.advance(refreshes: tick - last) }
        capTick = tick
        cap = bucket
        return bucket.available > 0
    }

    /// Why the pending frame counts as dropped if it is replaced or let go now.
    var pendingDropReason: DropReason {
        refusedByBudget ? .budget : heldByCap ? .frameRateCap : .superseded
    }

    mutating func clearPending() {
        hasPending = false
        refusedByBudget = false
        heldByCap = false
    }
}
