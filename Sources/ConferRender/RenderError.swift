/// Why the pacer refused a configuration or a view operation.
public struct RenderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A budget, refresh rate or frame-rate cap outside its allowed range.
        case invalidRate
        /// A view size of zero or beyond ``RenderView/maximumSide``.
        case invalidSize
        /// No view has that id.
        case unknownView
        /// A view with that id is already added.
        case duplicateView
    }
    /// What kind of problem it was.
    public let kind: Kind
    /// A sentence for a person: what was wrong, with the offending value.
    public let detail: String

    /// An error of `kind` explained by `detail`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
