import ConferMedia
public import ConferRender

/// What `confer render` simulates.
public struct RenderOptions: Sendable {
    /// Draws per second the display affords, shared by every view.
    public var budget: Int
    /// Display refreshes per second.
    public var refreshRate: Int
    /// Seconds to simulate; nil runs until the longest input ends.
    public var duration: Double?
    /// Width of every view.
    public var viewWidth: Int
    /// Height of every view.
    public var viewHeight: Int
    /// The input whose view has high priority (the active speaker), or nil for none.
    public var speaker: Int?

    /// Defaults: the reference budget of 120 draws/s on a 60 Hz display, 320×180 views,
    /// the first input as the active speaker.
    public init(budget: Int = 120, refreshRate: Int = 60, duration: Double? = nil, viewWidth: Int = 320,
                viewHeight: Int = 180, speaker: Int? = 0) {
        self.budget = budget
        self.refreshRate = refreshRate
        self.duration = duration
        self.viewWidth = viewWidth
        self.viewHeight = viewHeight
        self.speaker = speaker
    }
}

/// What the pacer drew and dropped over a render run.
public struct RenderReport: Codable, Sendable {
    /// One view's outcome.
    public struct View: Codable, Sendable {
        /// The input shown.
        public var input: String
        /// The view (numbered like the inputs, from 0).
        public var view: ViewID
        /// Its priority.
        public var priority: RenderPriority
        /// Frames the input delivered.
        public var framesReceived: Int
        /// Frames drawn.
        public var framesDrawn: Int
        /// Draws per second over the run.
        public var drawnFPS: Double
        /// Frames replaced before any refresh could draw them.
        public var droppedSuperseded: Int
        /// Frames the budget refused, then replaced.
        public var droppedBudget: Int
        /// Its draws as a fraction of the budget.
        public var budgetShare: Double
    }

    /// The inputs, one view each.
    public var inputs: [String]
    /// Draws per second afforded.
    public var budget: Int
    /// Refreshes per second.
    public var refreshRate: Int
    /// Seconds simulated.
    public var seconds: Double
    /// Refreshes made.
    public var refreshes: Int
    /// Every view's outcome, in input order.
    public var views: [View]
    /// Whether the views wanted more draws than the budget.
    public var isOverloaded: Bool
    /// The equal per-view rate that fits the budget.
    public var fairRate: Double
    /// The pacer's sentence on demand against the budget.
    public var overloadSummary: String
    /// The pacer's own counters at the end of the run.
    public var statistics: PacerStatistics
    /// Wall-clock seconds the simulation took.
    public var wallSeconds: Double
}

/// Shows what ``FramePacer`` draws and drops when every input plays into a view of its own:
/// frames are submitted at each input's timestamps and the pacer refreshes at the display
/// rate, all in virtual time (each refresh is made at its scheduled deadline, no waiting),
/// drawing into the views' RGBA pictures for real.
public enum RenderJob {
    /// Runs the simulation; `progress(done, total)` is called after every refresh.
    public static func run(inputs: [String], options: RenderOptions = RenderOptions(),
                           progress: (Int, Int?) -> Void = { _, _ in }) throws -> RenderReport {
        guard !inputs.isEmpty else { throw JobError(.invalidOptions, "render needs at least one video input") }
        guard inputs.count <= 1024 else { throw JobError(.invalidOptions, "\(inputs.count) inputs; render takes at most 1024") }
        if let speaker = options.speaker, !inputs.indices.contains(speaker) {
            throw JobError(.invalidOptions, "speaker \(speaker) is not an input index (0…\(inputs.count - 1))")
        }
        if let duration = options.duration, !(duration > 0 && duration <= 86_400) {
            throw JobError(.invalidOptions, "duration \(duration) s must be within (0, 86400]")
        }
        let start = ContinuousClock.now
        let pacer = try FramePacer(drawsPerSecond: options.budget, refreshRate: options.refreshRate)
        var readers: [VideoFileReader] = []
        for (i, path) in inputs.enumerated() {
            let reader = try VideoFileReader(path: path)
            guard reader.frameRate > 0 else { throw JobError(.invalidInput, "\(path) has no usable frame rate") }
            readers.append(reader)
            try pacer.add(RenderView(id: ViewID(i), stream: StreamID(UInt64(i)), width: options.viewWidth,
                                     height: options.viewHeight, priority: i == options.speaker ? .high : .normal))
        }

        let seconds = try options.duration ?? longestDuration(readers, inputs)
        let schedule = pacer.schedule
        let end = Timestamp.seconds(seconds)
        var refreshes = 0
        var submitted = [Int](repeating: 0, count: readers.count)
        var ended = [Bool](repeating: false, count: readers.count)
        let total = Int(schedule.tick(at: end))
        var tick: Int64 = 0
        while true {
            let deadline = schedule.deadline(ofTick: tick)
            guard deadline < end else { break }
            for i in readers.indices {
                // Every frame due by this refresh reaches the pacer, as a decoder would hand it over.
                while !ended[i], frameTime(submitted[i], rate: readers[i].frameRate) <= deadline {
                    guard let frame = try readers[i].next() else { ended[i] = true; break }
                    pacer.submit(stream: StreamID(UInt64(i)), frame: frame)
                    submitted[i] += 1
                }
            }
            pacer.refresh(at: deadline)
            refreshes += 1
            tick += 1
            progress(refreshes, total)
        }

        let statistics = pacer.statistics()
        let views = statistics.views.enumerated().map { i, view in
            let fps = seconds > 0 ? Double(view.framesDrawn) / seconds : 0
            return RenderReport.View(input: inputs[i], view: view.view, priority: view.priority,
                                     framesReceived: view.framesReceived, framesDrawn: view.framesDrawn, drawnFPS: fps,
                                     droppedSuperseded: view.dropped.superseded, droppedBudget: view.dropped.budget,
                                     budgetShare: fps / Double(options.budget))
        }
        return RenderReport(inputs: inputs, budget: options.budget, refreshRate: options.refreshRate, seconds: seconds,
                            refreshes: refreshes, views: views, isOverloaded: statistics.overload.isOverloaded,
                            fairRate: statistics.overload.fairRate, overloadSummary: statistics.overload.summary,
                            statistics: statistics, wallSeconds: (ContinuousClock.now - start).seconds)
    }

    /// The time of frame `index` of an input at `rate` frames per second.
    static func frameTime(_ index: Int, rate: Double) -> Timestamp {
        Timestamp(microseconds: Int64((Double(index) * 1_000_000 / rate).rounded()))
    }

    private static func longestDuration(_ readers: [VideoFileReader], _ inputs: [String]) throws -> Double {
        var longest = 0.0
        for (reader, path) in zip(readers, inputs) {
            guard let count = reader.frameCount else {
                throw JobError(.invalidInput, "the length of \(path) is not known; give --duration")
            }
            longest = max(longest, Double(count) / reader.frameRate)
        }
        return longest
    }
}
