/// A token bucket that lets at most `drawsPerSecond` draws happen over any `refreshRate`
/// consecutive refreshes, spread smoothly: never more than ⌈drawsPerSecond / refreshRate⌉
/// in one refresh.
///
/// Credit is counted in 1/`refreshRate` of a draw so the arithmetic is exact: each refresh
/// adds `drawsPerSecond` units, a draw costs `refreshRate`, and the bucket holds at most
/// `refreshRate + drawsPerSecond − 1`. That ceiling gives both guarantees at once — one
/// refresh can afford at most ⌈B/R⌉ draws, and R refreshes in a row at most
/// ⌊(R + B − 1 + (R − 1)·B) / R⌋ = B — while a caller that always has work loses no credit
/// (the carry after drawing is below one draw). The pacer uses one bucket for the whole
/// display and one per view for a frame-rate cap.
public struct DrawBudget: Hashable, Sendable {
    /// Draws allowed per second.
    public let drawsPerSecond: Int
    /// Refreshes per second the bucket is advanced at.
    public let refreshRate: Int
    /// Credit in 1/`refreshRate` draws.
    public private(set) var credit: Int

    /// Budgets the bucket accepts.
    public static let allowedDrawsPerSecond = 1...100_000

    /// A full bucket of `drawsPerSecond` draws per second refilled at `refreshRate` Hz.
    public init(drawsPerSecond: Int, refreshRate: Int) throws(RenderError) {
        guard Self.allowedDrawsPerSecond.contains(drawsPerSecond) else {
            throw RenderError(.invalidRate, "draw budget \(drawsPerSecond)/s is outside \(Self.allowedDrawsPerSecond)")
        }
        guard RefreshSchedule.allowedRates.contains(refreshRate) else {
            throw RenderError(.invalidRate, "refresh rate \(refreshRate) Hz is outside \(RefreshSchedule.allowedRates)")
        }
        self.drawsPerSecond = drawsPerSecond
        self.refreshRate = refreshRate
        credit = refreshRate + drawsPerSecond - 1
    }

    /// The most draws one refresh can ever allow: ⌈drawsPerSecond / refreshRate⌉.
    public var maxDrawsPerRefresh: Int { (drawsPerSecond + refreshRate - 1) / refreshRate }

    /// Draws affordable now.
    public var available: Int { credit / refreshRate }

    private var capacity: Int { refreshRate + drawsPerSecond - 1 }

    /// Adds the credit of `refreshes` elapsed refreshes (none for zero or a negative count).
    public mutating func advance(refreshes: Int64) {
        guard refreshes > 0 else { return }
        // Beyond one second's worth the bucket is full anyway; bounding the count keeps the
        // product from overflowing after a long pause.
        let steps = Int(min(refreshes, Int64(refreshRate) + 1))
        credit = min(capacity, credit + steps * drawsPerSecond)
    }

    /// Spends `draws` draws; returns false (spending nothing) when fewer are available.
    @discardableResult
    public mutating func spend(_ draws: Int) -> Bool {
        guard draws >= 0, draws <= available else { return false }
        credit -= draws * refreshRate
        return true
    }
}
