/// An error of some `Kind` callers switch on, with a sentence for a person: the shape of
/// the pipeline and job errors (``MediaFileError`` adds a format and an offset to it).
///
/// Each error type is this struct over its own kind enum, so a `catch` still tells a send
/// pipeline's error from a job's, and `kind` is exhaustive for a `switch`.
public struct KindedError<Kind: Hashable & Sendable>: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public let kind: Kind
    /// What was wrong and, where it helps, what to do, for a person.
    public let detail: String

    /// An error of `kind` saying `detail`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
