/// How a call ended. Every call ends with exactly one of these, and the call log keeps it.
public enum CallEndResult: String, Sendable, Codable, CaseIterable, Hashable {
    /// Either side hung up after media connected.
    case completed
    /// The caller hung up before the call was answered (or before media connected).
    case canceled
    /// The callee refused the call (or hung up before media connected).
    case declined
    /// Nobody answered within the ringing timeout.
    case noAnswer
    /// Answered, but media did not connect within the connection timeout.
    case timedOut
    /// A side's connection dropped and did not return within the reconnection window.
    case connectionLost
    /// The call could not be placed: the callee is unknown or offline.
    case dialFailed
    /// The answering device could not start its media.
    case acceptFailed
    /// Another device of the callee answered (the result a ringing device sees).
    case otherDeviceAccepted
}

/// Where a call is in its life, as one side sees it.
public enum CallPhase: String, Sendable, Codable, CaseIterable, Hashable {
    /// Placed by the caller, not yet known to ring.
    case dialing
    /// Ringing on the callee's devices.
    case ringing
    /// Answered; media is being set up.
    case accepted
    /// Media flows both ways.
    case connected
    /// Over; ``CallRecord/result`` says how.
    case ended
}
