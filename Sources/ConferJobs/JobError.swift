/// A job could not run as asked. The message says what was wrong and what to do.
public struct JobError: Error, Sendable, CustomStringConvertible {
    /// The sentence for a person.
    public let description: String
    /// A job error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The lower-case extension of `path` ("y4m" for "a/b.Y4M"), or "".
package func fileExtension(_ path: String) -> String {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
    return path[path.index(after: dot)...].lowercased()
}
