public import ConferMedia

/// Counters of a ``UDPRelay``: both paths' statistics and what the sockets did.
public struct UDPRelayStatistics: Codable, Sendable, Equatable {
    /// The sender → destination path.
    public var forward = NetworkLinkStatistics()
    /// The destination → sender path.
    public var backward = NetworkLinkStatistics()
    /// Datagrams sent on to the destination.
    public var datagramsForwarded = 0
    /// Datagrams sent back to the last sender.
    public var datagramsReturned = 0
    /// Datagrams from the destination that arrived before any sender was known.
    public var droppedNoPeer = 0
    /// Datagrams dropped because ``UDPRelayConfiguration/maxPacketsInFlight`` were held.
    public var droppedOverflow = 0
    /// Datagrams the socket failed to send.
    public var sendErrors = 0
    /// How long the relay has run.
    public var elapsed = TimeDelta.zero

    /// Zero counters.
    public init() {}
}
