/// A receive pipeline was configured in a way it cannot work with.
public struct ReceivePipelineError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, for a person.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
