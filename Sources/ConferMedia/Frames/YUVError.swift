/// Why a libyuv scaling or colour conversion could not run.
///
/// Arguments are checked before libyuv is called, so ``Kind/invalidArgument`` names what
/// was wrong; ``Kind/library`` keeps libyuv's own (non-zero) return code.
public struct YUVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A rectangle, size or buffer did not fit what the call needs.
        case invalidArgument
        /// libyuv itself returned an error.
        case library
    }
    /// What kind of problem it was.
    public let kind: Kind
    /// The operation that failed, such as "I420Scale".
    public let function: String
    /// libyuv's return code (0 when the arguments were rejected before the call).
    public let code: Int32
    /// A sentence for a person: what was wrong.
    public let detail: String

    /// An error from `function`.
    public init(_ kind: Kind, function: String, code: Int32 = 0, _ detail: String) {
        self.kind = kind
        self.function = function
        self.code = code
        self.detail = detail
    }

    public var description: String {
        kind == .library ? "\(function) returned \(code): \(detail)" : "\(function): \(detail)"
    }
}
