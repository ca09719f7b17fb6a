public import ConferMedia

/// The pacer's pure decision core: which views draw at each refresh, under a shared
/// ``DrawBudget``, with no pixels, no clock and no I/O.
///
/// Views are *lanes*, numbered in the order they were added (removing one renumbers the
/// ones after it). Each lane holds at most one pending frame — the newest; a frame that is
/// replaced counts as dropped, with the reason it never drew (``DropReason``). At each
/// refresh the lanes with a pending frame that their frame-rate cap allows compete for the
/// draws the budget affords, and the winners are chosen by weighted fair queueing: a lane
/// that becomes backlogged takes the start tag `max(its last finish, virtual time)` and the
/// smallest finish tag `start + 1/weight` draws first (ties: the longer waiter, then the
/// lower lane). Because a lane can never draw faster than its frames arrive, this is
/// weighted max-min fairness: lanes that need less than their share get all they need and
/// the rest is split by weight, and joining at the current virtual time means an idle or
/// disabled lane banks no credit to burst with later.
///
/// Mutating methods return what to do (draw these lanes, this frame was dropped); the
/// caller keeps the frames and converts the pixels (``FramePacer``). Nothing allocates per
/// refresh once lanes are added: the output array is the caller's and keeps its capacity.
public struct DrawScheduler: Sendable {
    /// What the scheduler needs to know about a view.
    public struct LaneSettings: Hashable, Sendable, Codable {
        /// A disabled lane draws nothing and lets its frames go, freeing its share.
        public var isEnabled: Bool
        /// The lane's weight under pressure.
        public var priority: RenderPriority
        /// At most this many draws per second, or nil for no cap.
        public var frameRateCap: Int?

        /// Settings for a lane.
        public init(isEnabled: Bool = true, priority: RenderPriority = .normal, frameRateCap: Int? = nil) {
            self.isEnabled = isEnabled
            self.priority = priority
            self.frameRateCap = frameRateCap
        }
    }

    /// What happened to a frame handed to a lane.
    public enum Arrival: Hashable, Sendable {
        /// It is now the lane's pending frame; nothing was dropped.
        case queued
        /// It replaced the pending frame, which is dropped for this reason.
        case replaced(DropReason)
        /// The lane is disabled: the new frame itself is dropped.
        case refused
    }

    /// The result of one refresh decision.
    public struct Outcome: Hashable, Sendable, Codable {
        /// The refresh number (see ``RefreshSchedule``).
        public var tick: Int64
        /// Draws the budget afforded at this refresh.
        public var allowance: Int
        /// Lanes drawn (written to the caller's array).
        public var drawn: Int
        /// Lanes that had a drawable frame but no budget left; they try again next refresh.
        public var refused: Int
        /// Lanes whose pending frame their frame-rate cap held back.
        public var capped: Int
    }

    /// Counters of one lane.
    public struct LaneStatistics: Hashable, Sendable, Codable {
        /// Frames handed to the lane.
        public var framesReceived: Int
        /// Frames drawn.
        public var framesDrawn: Int
        /// Frames dropped, by reason.
        public var dropped: DropCounts
        /// Draws in the last second (the last `refreshRate` refreshes).
        public var drawnLastSecond: Int
        /// Frames received in the last second: the source rate as the pacer sees it.
        public var receivedLastSecond: Int
        /// Draws per second since the lane's first refresh.
        public var averageDrawnFPS: Double
        /// Whether a frame is waiting to draw.
        public var hasPendingFrame: Bool
    }

    /// Frame-rate caps a lane accepts.
    public static let allowedFrameRateCaps = 1...1000

    /// The refresh grid ticks are counted on.
    public let schedule: RefreshSchedule
    /// The shared budget, as it stands after the last refresh.
    public private(set) var budget: DrawBudget
    /// The latest refresh decided, or nil before the first.
    public private(set) var currentTick: Int64?
    /// Refresh decisions made.
    public private(set) var refreshCount = 0
    /// Draws decided since the scheduler was made.
    public private(set) var totalDraws = 0

    private var lanes: [SchedulerLane] = []
    private var candidates: [Int] = []
    private var virtualTime: UInt64 = 0
    private var arrivalSequence: UInt64 = 0
    private var drawWindow: TickWindow

    /// A scheduler sharing `drawsPerSecond` draws among its lanes on a `refreshRate` Hz display.
    public init(drawsPerSecond: Int = 120, refreshRate: Int = 60) throws(RenderError) {
        schedule = try RefreshSchedule(rate: refreshRate)
        budget = try DrawBudget(drawsPerSecond: drawsPerSecond, refreshRate: refreshRate)
        drawWindow = TickWindow(span: refreshRate)
    }

    /// How many lanes there are.
    public var laneCount: Int { lanes.count }

    /// Draws decided in the last second.
    public var drawsLastSecond: Int { currentTick.map { drawWindow.sum(span: schedule.rate, endingAt: $0) } ?? 0 }

    /// Adds a lane and returns its number (the current ``laneCount``).
    public mutating func addLane(_ settings: LaneSettings) throws(RenderError) -> Int {
        lanes.append(try SchedulerLane(settings: settings, refreshRate: schedule.rate, firstTick: currentTick))
        candidates.reserveCapacity(lanes.count)
        return lanes.count - 1
    }

    /// Removes `lane`; lanes after it move down by one. Its pending frame is simply forgotten.
    public mutating func removeLane(_ lane: Int) {
        lanes.remove(at: lane)
    }

    /// The settings of `lane`.
    public func settings(ofLane lane: Int) -> LaneSettings { lanes[lane].settings }

    /// Changes the settings of `lane`. Returns ``DropReason/disabled`` when disabling it
    /// let its pending frame go (the caller releases that frame).
    @discardableResult
    public mutating func update(lane: Int, settings: LaneSettings) throws(RenderError) -> DropReason? {
        let old = lanes[lane].settings
        if old.frameRateCap != settings.frameRateCap {
            lanes[lane].cap = try SchedulerLane.capBucket(settings.frameRateCap, refreshRate: schedule.rate)
            lanes[lane].capTick = nil
        }
        lanes[lane].settings = settings
        lanes[lane].stride = SchedulerLane.unit / UInt64(settings.priority.weight)
        guard !settings.isEnabled, lanes[lane].hasPending else { return nil }
        lanes[lane].dropped.disabled += 1
        lanes[lane].clearPending()
        return .disabled
    }

    /// Hands `lane` a new frame; it replaces any pending one.
    public mutating func frameArrived(lane: Int) -> Arrival {
        lanes[lane].received += 1
        guard lanes[lane].settings.isEnabled else {
            lanes[lane].dropped.disabled += 1
            return .refused
        }
        // Counted for the coming refresh: that is the one that can draw it.
        lanes[lane].arrivals.add(at: (currentTick ?? -1) + 1)
        if lanes[lane].hasPending {
            // The view keeps its place in the queue (start tag, waiting order): a source
            // outrunning the display must not push its view to the back.
            let reason = lanes[lane].pendingDropReason
            lanes[lane].dropped[reason] += 1
            lanes[lane].refusedByBudget = false
            lanes[lane].heldByCap = false
            return .replaced(reason)
        }
        arrivalSequence += 1
        lanes[lane].hasPending = true
        lanes[lane].pendingSequence = arrivalSequence
        lanes[lane].start = max(lanes[lane].finish, virtualTime)
        return .queued
    }

    /// Decides the refresh at `time`: writes the lanes to draw into `drawn` (cleared first,
    /// in draw order) and marks their frames drawn.
    ///
    /// Refreshes skipped since the last call refill the budget as if they had happened
    /// (up to one second's worth); a second call within one refresh gets only what is left.
    public mutating func refresh(at time: Timestamp, drawing drawn: inout [Int]) -> Outcome {
        drawn.removeAll(keepingCapacity: true)
        let tick = schedule.tick(at: time)
        let now: Int64
        if let current = currentTick {
            now = max(current, tick)
            budget.advance(refreshes: now - current)
        } else {
            now = tick
        }
        currentTick = now
        refreshCount += 1

        candidates.removeAll(keepingCapacity: true)
        var capped = 0
        for i in lanes.indices {
            if lanes[i].firstTick == nil { lanes[i].firstTick = now }
            guard lanes[i].hasPending else { continue }
            if lanes[i].capAllows(at: now) {
                candidates.append(i)
            } else {
                lanes[i].heldByCap = true
                capped += 1
            }
        }

        let allowance = budget.available
        while drawn.count < allowance, !candidates.isEmpty {
            var best = 0
            for k in 1..<candidates.count where precedes(candidates[k], candidates[best]) { best = k }
            let lane = candidates[best]
            candidates.swapAt(best, candidates.count - 1)
            candidates.removeLast()
            markDrawn(lane, at: now)
            drawn.append(lane)
        }
        for lane in candidates { lanes[lane].refusedByBudget = true }
        budget.spend(drawn.count)
        return Outcome(tick: now, allowance: allowance, drawn: drawn.count, refused: candidates.count, capped: capped)
    }

    /// The counters of `lane` as of the latest refresh.
    public func statistics(ofLane lane: Int) -> LaneStatistics {
        let l = lanes[lane]
        let tick = currentTick ?? 0
        var average = 0.0
        if let first = l.firstTick, let current = currentTick {
            average = Double(l.drawn) * Double(schedule.rate) / Double(current - first + 1)
        }
        return LaneStatistics(framesReceived: l.received, framesDrawn: l.drawn, dropped: l.dropped,
                              drawnLastSecond: l.draws.sum(span: schedule.rate, endingAt: tick),
                              receivedLastSecond: l.arrivals.sum(span: schedule.rate, endingAt: tick),
                              averageDrawnFPS: average, hasPendingFrame: l.hasPending)
    }

    /// Whether `a` draws before `b`: smaller finish tag, then the longer waiter, then the lower lane.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let fa = lanes[a].pendingFinish, fb = lanes[b].pendingFinish
        if fa != fb { return fa < fb }
        if lanes[a].pendingSequence != lanes[b].pendingSequence {
            return lanes[a].pendingSequence < lanes[b].pendingSequence
        }
        return a < b
    }

    private mutating func markDrawn(_ lane: Int, at tick: Int64) {
        virtualTime = max(virtualTime, lanes[lane].start)
        lanes[lane].finish = lanes[lane].pendingFinish
        lanes[lane].clearPending()
        lanes[lane].drawn += 1
        lanes[lane].draws.add(at: tick)
        if lanes[lane].cap != nil { lanes[lane].cap!.spend(1) }
        drawWindow.add(at: tick)
        totalDraws += 1
    }
}
