/// How strongly a view competes for the draw budget: a weight in weighted max-min fair
/// sharing.
///
/// Weights, not a strict order, because a strict order lets a crowd of high-priority views
/// starve the rest. Under pressure each view gets draws in proportion to its weight, and a
/// view that needs less than that (a slow source, a frame-rate cap) hands the rest on, so
/// `high` (32 = 8 × `normal`) gives the active speaker its full 30 fps beside up to 24
/// normal 30 fps views (a 5 × 5 gallery) at the reference 120 draws/s, while every view
/// keeps at least `weight / Σ weights` of the budget.
public struct RenderPriority: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The share weight, 1 ... ``maximumWeight``.
    public let weight: Int

    /// The largest weight: keeps virtual-time strides exact enough (see ``DrawScheduler``).
    public static let maximumWeight = 1024

    /// A priority of `weight`, clamped to 1 ... ``maximumWeight``.
    public init(weight: Int) { self.weight = min(max(weight, 1), Self.maximumWeight) }

    /// Views the app can spare first (off-screen strips, self view).
    public static let low = RenderPriority(weight: 1)
    /// An ordinary gallery tile.
    public static let normal = RenderPriority(weight: 4)
    /// The active speaker or a pinned view.
    public static let high = RenderPriority(weight: 32)

    /// Decodes a bare weight.
    public init(from decoder: any Decoder) throws { self.init(weight: try decoder.singleValueContainer().decode(Int.self)) }
    /// Encodes a bare weight.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(weight)
    }

    public static func < (a: RenderPriority, b: RenderPriority) -> Bool { a.weight < b.weight }
    public var description: String {
        switch weight {
        case Self.low.weight: "low"
        case Self.normal.weight: "normal"
        case Self.high.weight: "high"
        default: "weight \(weight)"
        }
    }
}
