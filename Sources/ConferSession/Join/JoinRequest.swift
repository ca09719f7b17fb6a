/// A participant waiting for the host's answer (or an observer applying to become a
/// participant).
public struct JoinRequest: Sendable, Codable, Hashable {
    /// Who asks.
    public var identity: String
    /// The name the token gives.
    public var name: String
    /// When the request was made.
    public var created: SessionTime
    /// When it expires unanswered.
    public var expires: SessionTime
}

/// How a join request (or an application) ended.
public enum JoinRequestOutcome: String, Sendable, Codable, Hashable {
    /// The host approved.
    case approved
    /// The host declined.
    case declined
    /// The requester cancelled (or left) while waiting.
    case cancelled
    /// Nobody answered in time.
    case expired
    /// The host approved, but the room was full by then.
    case roomFull
}
