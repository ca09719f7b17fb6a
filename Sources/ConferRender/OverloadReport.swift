/// What one view would draw with an unlimited budget, for sizing against the real one.
public struct ViewDemand: Hashable, Sendable, Codable {
    /// The view.
    public var view: ViewID
    /// Draws per second it wants: its source rate, limited by its cap and the refresh rate.
    public var frameRate: Double
    /// Its weight when the budget is short.
    public var priority: RenderPriority

    /// The demand of `view`.
    public init(view: ViewID, frameRate: Double, priority: RenderPriority = .normal) {
        self.view = view
        self.frameRate = frameRate
        self.priority = priority
    }
}

/// One view's expected draw rate under weighted max-min fair sharing.
public struct ViewShare: Hashable, Sendable, Codable {
    /// The view.
    public var view: ViewID
    /// Draws per second it should get.
    public var frameRate: Double
}

/// Demand against the draw budget: whether it fits and, if not, what would.
public struct OverloadReport: Hashable, Sendable, Codable {
    /// Draws per second the display affords.
    public var budget: Int
    /// Draws per second the enabled views want in total.
    public var demand: Double
    /// `demand / budget`: above 1 means frames will be dropped for lack of budget.
    public var utilization: Double
    /// Whether demand exceeds the budget.
    public var isOverloaded: Bool
    /// The single per-view rate that fits: every view at `min(its demand, fairRate)`
    /// uses the whole budget (120 draws/s over eight 30 fps views: 15). When nothing is
    /// overloaded it is the largest demand — every view already fits.
    public var fairRate: Double
    /// What each view should draw with priorities taken into account.
    public var shares: [ViewShare]
    /// The fewest views, lowest priority first (then the most recently added), whose
    /// disabling lets every other view draw at its full demand. Empty when nothing is overloaded.
    public var disableToFit: [ViewID]
    /// One sentence for a person.
    public var summary: String

    /// Sizes `demands` against `budget` draws per second. Demands are listed in the order
    /// the views were added.
    public init(demands: [ViewDemand], budget: Int) {
        self.budget = budget
        let rates = demands.map { max(0, $0.frameRate) }
        demand = rates.reduce(0, +)
        utilization = budget > 0 ? demand / Double(budget) : 0
        isOverloaded = demand > Double(budget)
        fairRate = Self.waterLevel(rates: rates, weights: rates.map { _ in 1 }, budget: Double(budget))
            ?? rates.max() ?? Double(budget)
        let weights = demands.map { Double($0.priority.weight) }
        let level = Self.waterLevel(rates: rates, weights: weights, budget: Double(budget))
        shares = zip(demands, weights).map { d, w in
            ViewShare(view: d.view, frameRate: level.map { min(max(0, d.frameRate), w * $0) } ?? max(0, d.frameRate))
        }
        var toDisable: [ViewID] = []
        if isOverloaded {
            // Lowest weight first; among equals the last added goes first, as a gallery
            // drops its trailing tiles.
            let order = demands.indices.sorted {
                let (a, b) = (demands[$0], demands[$1])
                return a.priority != b.priority ? a.priority < b.priority : $0 > $1
            }
            var remaining = demand
            for i in order where remaining > Double(budget) {
                guard rates[i] > 0 else { continue }
                toDisable.append(demands[i].view)
                remaining -= rates[i]
            }
        }
        disableToFit = toDisable
        if isOverloaded {
            summary = "demand \(Self.format(demand)) draws/s exceeds the budget of \(budget): "
                + "each view fits at \(Self.format(fairRate)) fps, or disable \(toDisable.count) "
                + "view\(toDisable.count == 1 ? "" : "s") (\(toDisable.map { String($0.rawValue) }.joined(separator: ", ")))"
        } else {
            summary = "demand \(Self.format(demand)) draws/s fits the budget of \(budget) "
                + "(\(Self.format(utilization * 100))% used)"
        }
    }

    /// The level `L` at which `Σ min(rate_i, weight_i × L) == budget`, or nil when the
    /// rates fit without limiting anyone. Water-filling: views whose demand is under
    /// their weighted share are satisfied and leave the rest to the others.
    static func waterLevel(rates: [Double], weights: [Double], budget: Double) -> Double? {
        guard rates.reduce(0, +) > budget else { return nil }
        var satisfied = [Bool](repeating: false, count: rates.count)
        var remaining = budget
        while true {
            var weightSum = 0.0
            for i in rates.indices where !satisfied[i] { weightSum += weights[i] }
            guard weightSum > 0 else { return nil }
            let level = remaining / weightSum
            var changed = false
            for i in rates.indices where !satisfied[i] && rates[i] <= weights[i] * level {
                satisfied[i] = true
                remaining -= rates[i]
                changed = true
            }
            if !changed { return level }
        }
    }

    private static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
