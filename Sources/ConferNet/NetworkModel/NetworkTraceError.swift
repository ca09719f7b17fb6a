/// Why a network trace could not be read: what was wrong and on which line.
public struct NetworkTraceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: String, Sendable, Codable {
        /// A line is neither a delay in milliseconds nor `loss`.
        case invalidEntry
        /// A delay is negative or longer than ``NetworkTrace/maximumDelay``.
        case delayOutOfRange
        /// The trace has no entries.
        case empty
        /// The trace is longer than ``NetworkTrace/maximumEntries`` or ``NetworkTrace/maximumFileBytes``.
        case tooLarge
        /// The file could not be read.
        case io
    }

    /// What kind of problem it was.
    public let kind: Kind
    /// The 1-based line where it was found, when it concerns a line.
    public let line: Int?
    /// A sentence for a person: what was wrong.
    public let detail: String

    /// An error of `kind` on `line`.
    public init(_ kind: Kind, line: Int? = nil, _ detail: String) {
        self.kind = kind
        self.line = line
        self.detail = detail
    }

    public var description: String {
        if let line { return "network trace, line \(line): \(detail)" }
        return "network trace: \(detail)"
    }
}
