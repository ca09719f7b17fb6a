/// A send pipeline was configured or fed in a way it cannot work with.
public struct SendPipelineError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, for a person.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
