/// What a connection's writer sends next: a message, or the close that ends it.
enum SessionOutbound: Sendable {
    /// One JSON text message.
    case text(String)
    /// Close with this application code (4000–4999) and reason.
    case close(code: UInt16, reason: String)
}
