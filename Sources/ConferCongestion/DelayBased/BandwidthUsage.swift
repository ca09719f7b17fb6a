/// What the delay-based detector concludes about the path (draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: String, Hashable, Sendable, Codable {
    /// Queuing delay is steady: the send rate fits the path.
    case normal
    /// Queuing delay grows: the sender exceeds the bottleneck and should back off.
    case overusing
    /// Queuing delay shrinks: queues are draining, so hold the rate until they are empty.
    case underusing
}
