public import ConferMedia

/// One view's counters and settings at a moment.
public struct ViewStatistics: Hashable, Sendable, Codable {
    /// The view.
    public var view: ViewID
    /// The stream it shows.
    public var stream: StreamID
    /// Whether it draws.
    public var isEnabled: Bool
    /// Its weight under pressure.
    public var priority: RenderPriority
    /// Its frame-rate cap, if any.
    public var frameRateCap: Int?
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// Fit or fill.
    public var mode: FitFill.Mode
    /// Frames that reached it.
    public var framesReceived: Int
    /// Frames it drew.
    public var framesDrawn: Int
    /// Frames it dropped, by reason.
    public var dropped: DropCounts
    /// Draws in the last second: its current drawn frame rate.
    public var drawnLastSecond: Int
    /// Frames received in the last second: its source rate.
    public var receivedLastSecond: Int
    /// Draws per second since its first refresh.
    public var averageDrawnFPS: Double
    /// Its draws in the last second as a fraction of the budget.
    public var budgetShare: Double
    /// Draws libyuv refused (should stay 0; see ``lastError``).
    public var drawFailures: Int
    /// The last draw failure, as text.
    public var lastError: String?
}

/// The pacer's counters at a moment: a `Codable` snapshot for JSON and tables.
public struct PacerStatistics: Hashable, Sendable, Codable {
    /// The latest refresh time, or nil before the first.
    public var time: Timestamp?
    /// Draws per second the display affords.
    public var budget: Int
    /// Refreshes per second.
    public var refreshRate: Int
    /// Refreshes made.
    public var refreshes: Int
    /// Draws made.
    public var totalDraws: Int
    /// Draws in the last second.
    public var drawsLastSecond: Int
    /// `drawsLastSecond / budget`.
    public var utilization: Double
    /// Whether the views want more draws than the budget.
    public var isOverloaded: Bool
    /// Demand against the budget, with what per-view rate would fit.
    public var overload: OverloadReport
    /// Every view, in the order added.
    public var views: [ViewStatistics]
}
