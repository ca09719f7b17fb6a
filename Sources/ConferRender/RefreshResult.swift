public import ConferMedia

/// What one refresh did.
public struct RefreshResult: Hashable, Sendable, Codable {
    /// The time the refresh was made for.
    public var time: Timestamp
    /// The refresh number on the pacer's ``RefreshSchedule``.
    public var tick: Int64
    /// Views drawn, in draw order.
    public var drawn: [ViewID]
    /// Draws the budget afforded at this refresh.
    public var allowance: Int
    /// Views with a new frame that the budget made wait.
    public var refused: Int
    /// Views with a new frame that their frame-rate cap held back.
    public var capped: Int
    /// Draws that libyuv failed (counted per view in ``ViewStatistics/drawFailures``).
    public var failed: Int
}
