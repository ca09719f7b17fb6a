/// Why a frame that reached a view was never drawn.
public enum DropReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// A newer frame arrived before any refresh could draw this one (the source outran
    /// the display; no budget was refused).
    case superseded
    /// The budget refused it at a refresh, and a newer frame replaced it before it drew.
    case budget
    /// The view's frame-rate cap held it back until a newer frame replaced it.
    case frameRateCap
    /// The view was disabled: frames that reach it, and the one it held, are let go.
    case disabled
}

/// Dropped-frame counts by reason.
public struct DropCounts: Hashable, Sendable, Codable {
    /// Frames replaced before any refresh saw them.
    public var superseded = 0
    /// Frames refused by the budget, then replaced.
    public var budget = 0
    /// Frames held by the frame-rate cap, then replaced.
    public var frameRateCap = 0
    /// Frames let go because the view was disabled.
    public var disabled = 0

    /// No drops.
    public init() {}

    /// All drops, whatever the reason.
    public var total: Int { superseded + budget + frameRateCap + disabled }

    /// The count for `reason`.
    public subscript(reason: DropReason) -> Int {
        get {
            switch reason {
            case .superseded: superseded
            case .budget: budget
            case .frameRateCap: frameRateCap
            case .disabled: disabled
            }
        }
        set {
            switch reason {
            case .superseded: superseded = newValue
            case .budget: budget = newValue
            case .frameRateCap: frameRateCap = newValue
            case .disabled: disabled = newValue
            }
        }
    }
}
