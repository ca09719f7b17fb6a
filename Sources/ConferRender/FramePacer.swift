public import ConferMedia

/// The renderer: views bound to streams, drawn at each display refresh within a shared
/// GPU draw budget (default 120 draws/s at 60 Hz).
///
/// Frames are handed in with ``submit(stream:frame:)`` — each view keeps only the newest —
/// and ``refresh(at:)`` asks the ``DrawScheduler`` which views draw, then converts their
/// frames into their RGBA pictures. Drive it by calling ``refresh(at:)`` with virtual time
/// (tests) or with ``run(clock:until:isolation:beforeRefresh:afterRefresh:)`` on a clock.
///
/// Used from one task, so a plain class with no locks; in steady state neither submitting
/// nor refreshing allocates (the drawn-view list returned is reused when the caller lets
/// the previous one go).
public final class FramePacer {
    /// The refresh grid.
    public let schedule: RefreshSchedule
    /// Draws per second shared by every view.
    public let drawsPerSecond: Int
    /// How draws scale pictures.
    public var scaler: VideoScaler

    private var scheduler: DrawScheduler
    private var slots: [Slot] = []
    private var laneOfView: [ViewID: Int] = [:]
    private var lanesOfStream: [StreamID: [Int]] = [:]
    private var drawLanes: [Int] = []
    private var drawnViews: [ViewID] = []
    /// The time of the latest refresh, or nil before the first.
    public private(set) var lastRefreshTime: Timestamp?

    /// A view with what the scheduler does not hold: its frame and its pixels.
    struct Slot {
        var view: RenderView
        var pending: VideoFrame?
        var drawFailures = 0
        var lastError: YUVError?
    }

    /// A pacer sharing `drawsPerSecond` draws among its views on a `refreshRate` Hz display.
    public init(drawsPerSecond: Int = 120, refreshRate: Int = 60,
                scaler: VideoScaler = VideoScaler(filter: .bilinear)) throws(RenderError) {
        scheduler = try DrawScheduler(drawsPerSecond: drawsPerSecond, refreshRate: refreshRate)
        schedule = scheduler.schedule
        self.drawsPerSecond = drawsPerSecond
        self.scaler = scaler
    }

    /// Refreshes per second.
    public var refreshRate: Int { schedule.rate }

    /// The most views one refresh can draw: ⌈drawsPerSecond / refreshRate⌉.
    public var maxDrawsPerRefresh: Int { scheduler.budget.maxDrawsPerRefresh }

    /// The equal per-view rate that `views` views fit in `budget` draws per second.
    public static func fairRate(views: Int, budget: Int) -> Double {
        views > 0 ? Double(budget) / Double(views) : Double(budget)
    }

    // MARK: Views

    /// The ids of every view, in the order added.
    public var viewIDs: [ViewID] { slots.map(\.view.id) }

    /// A copy of view `id`, or nil when there is none.
    public func view(_ id: ViewID) -> RenderView? { laneOfView[id].map { slots[$0].view } }

    /// Adds `view`; its id must be new to this pacer.
    public func add(_ view: RenderView) throws(RenderError) {
        guard laneOfView[view.id] == nil else { throw RenderError(.duplicateView, "\(view.id) is already added") }
        let lane = try scheduler.addLane(view.laneSettings)
        slots.append(Slot(view: view))
        laneOfView[view.id] = lane
        rebuildStreamIndex()
    }

    /// Removes view `id` and lets its pending frame go.
    public func removeView(_ id: ViewID) throws(RenderError) {
        let lane = try self.lane(of: id)
        scheduler.removeLane(lane)
        slots.remove(at: lane)
        laneOfView = Dictionary(uniqueKeysWithValues: slots.indices.map { (slots[$0].view.id, $0) })
        rebuildStreamIndex()
    }

    /// Enables or disables view `id`; disabling lets its pending frame go (dropped as
    /// ``DropReason/disabled``) and frees its share for the others.
    public func setEnabled(_ isEnabled: Bool, for id: ViewID) throws(RenderError) {
        try update(id) { $0.isEnabled = isEnabled }
    }

    /// Sets the weight of view `id` (``RenderPriority/high`` for the active speaker).
    public func setPriority(_ priority: RenderPriority, for id: ViewID) throws(RenderError) {
        try update(id) { $0.priority = priority }
    }

    /// Caps view `id` at `frameRateCap` draws per second, or removes the cap with nil.
    public func setFrameRateCap(_ frameRateCap: Int?, for id: ViewID) throws(RenderError) {
        try update(id) { $0.frameRateCap = frameRateCap }
    }

    /// Switches view `id` between fit and fill; the next draw repaints it.
    public func setMode(_ mode: FitFill.Mode, for id: ViewID) throws(RenderError) {
        try update(id) { $0.mode = mode }
    }

    /// Resizes view `id`; its picture is cleared until the next draw.
    public func resizeView(_ id: ViewID, width: Int, height: Int) throws(RenderError) {
        let lane = try self.lane(of: id)
        try slots[lane].view.resize(width: width, height: height)
    }

    /// Binds view `id` to `stream`; a frame pending from the old stream still draws.
    public func bindView(_ id: ViewID, to stream: StreamID) throws(RenderError) {
        try update(id) { $0.stream = stream }
        rebuildStreamIndex()
    }

    // MARK: Frames and refreshes

    /// Hands `frame` to every view bound to `stream`; each keeps it as its newest frame,
    /// dropping the one it replaces. Returns how many views received it.
    @discardableResult
    public func submit(stream: StreamID, frame: VideoFrame) -> Int {
        guard let lanes = lanesOfStream[stream] else { return 0 }
        for lane in lanes {
            switch scheduler.frameArrived(lane: lane) {
            case .queued, .replaced: slots[lane].pending = frame
            case .refused: break
            }
        }
        return lanes.count
    }

    /// Makes the refresh at `time`: decides which views draw and draws them.
    @discardableResult
    public func refresh(at time: Timestamp) -> RefreshResult {
        let outcome = scheduler.refresh(at: time, drawing: &drawLanes)
        drawnViews.removeAll(keepingCapacity: true)
        var failed = 0
        for lane in drawLanes {
            guard let frame = slots[lane].pending else { continue }
            slots[lane].pending = nil
            do throws(YUVError) {
                try slots[lane].view.draw(frame, scaler: scaler)
            } catch {
                slots[lane].drawFailures += 1
                slots[lane].lastError = error
                failed += 1
            }
            drawnViews.append(slots[lane].view.id)
        }
        lastRefreshTime = time
        return RefreshResult(time: time, tick: outcome.tick, drawn: drawnViews, allowance: outcome.allowance,
                             refused: outcome.refused, capped: outcome.capped, failed: failed)
    }

    // MARK: Statistics

    /// Demand against the budget now: each enabled view wants its source rate of the last
    /// second, limited by its cap and the refresh rate.
    public func overloadReport() -> OverloadReport {
        var demands: [ViewDemand] = []
        for lane in slots.indices where slots[lane].view.isEnabled {
            let view = slots[lane].view
            var rate = scheduler.statistics(ofLane: lane).receivedLastSecond
            rate = min(rate, view.frameRateCap ?? rate, refreshRate)
            demands.append(ViewDemand(view: view.id, frameRate: Double(rate), priority: view.priority))
        }
        return OverloadReport(demands: demands, budget: drawsPerSecond)
    }

    /// A snapshot of every counter.
    public func statistics() -> PacerStatistics {
        let views = slots.indices.map { lane -> ViewStatistics in
            let s = scheduler.statistics(ofLane: lane)
            let v = slots[lane].view
            return ViewStatistics(view: v.id, stream: v.stream, isEnabled: v.isEnabled, priority: v.priority,
                                  frameRateCap: v.frameRateCap, width: v.width, height: v.height, mode: v.mode,
                                  framesReceived: s.framesReceived, framesDrawn: s.framesDrawn, dropped: s.dropped,
                                  drawnLastSecond: s.drawnLastSecond, receivedLastSecond: s.receivedLastSecond,
                                  averageDrawnFPS: s.averageDrawnFPS,
                                  budgetShare: Double(s.drawnLastSecond) / Double(drawsPerSecond),
                                  drawFailures: slots[lane].drawFailures,
                                  lastError: slots[lane].lastError.map { String(describing: $0) })
        }
        let overload = overloadReport()
        let last = scheduler.drawsLastSecond
        return PacerStatistics(time: lastRefreshTime, budget: drawsPerSecond, refreshRate: refreshRate,
                               refreshes: scheduler.refreshCount, totalDraws: scheduler.totalDraws,
                               drawsLastSecond: last, utilization: Double(last) / Double(drawsPerSecond),
                               isOverloaded: overload.isOverloaded, overload: overload, views: views)
    }

    // MARK: Helpers

    /// The tick a new run loop starts at: the first refresh not yet made.
    var nextTick: Int64? { scheduler.currentTick.map { $0 + 1 } }

    private func lane(of id: ViewID) throws(RenderError) -> Int {
        guard let lane = laneOfView[id] else { throw RenderError(.unknownView, "no \(id) in this pacer") }
        return lane
    }

    /// Applies `change` to the settings of view `id`, telling the scheduler first so a
    /// rejected cap leaves the view unchanged.
    private func update(_ id: ViewID, _ change: (inout RenderView) -> Void) throws(RenderError) {
        let lane = try self.lane(of: id)
        var view = slots[lane].view
        change(&view)
        if try scheduler.update(lane: lane, settings: view.laneSettings) == .disabled {
            slots[lane].pending = nil
        }
        slots[lane].view = view
    }

    private func rebuildStreamIndex() {
        lanesOfStream = [:]
        for lane in slots.indices { lanesOfStream[slots[lane].view.stream, default: []].append(lane) }
    }
}
