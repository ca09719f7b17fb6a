
/// Reception counters of one SSRC, RFC 3550 style.
public struct LiveStreamStatistics: Codable, Sendable, Equatable {
    /// The source.
    public var ssrc: UInt32
    /// Packets counted as received (duplicates included, as RFC 3550 A.3 counts them).
    public var packetsReceived: Int64
    /// Packets expected from the sequence numbers seen.
    public var packetsExpected: Int64
    /// Expected minus received; negative when duplicates outnumber losses.
    public var cumulativeLost: Int64
    /// Repeats of a packet already received.
    public var duplicates: Int64
    /// Packets that arrived after a higher sequence number.
    public var outOfOrder: Int64
    /// The interarrival jitter estimate in milliseconds.
    public var jitterMilliseconds: Double
}
