/// A host pipeline was configured or used in a way it cannot work with.
public struct HostPipelineError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, for a person.
    public let description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
