public import ConferMedia

/// A sent packet that the receiver acknowledged: when it left, when it arrived, how big
/// it was (what GCC's estimators consume).
public struct PacketFeedback: Hashable, Sendable {
    /// The transport-wide sequence number, unwrapped to 64 bits.
    public var sequenceNumber: Int64
    /// When it left the sender, on the sender's clock.
    public var sendTime: Timestamp
    /// When it arrived, on the receiver's clock mapped onto the sender's timeline: only
    /// differences between receive times are meaningful.
    public var receiveTime: Timestamp
    /// Its size in bytes, as given when it was sent.
    public var size: Int
    /// The probe cluster it belonged to, or nil for ordinary media.
    public var probeClusterID: Int?

    /// Feedback for one packet.
    public init(sequenceNumber: Int64, sendTime: Timestamp, receiveTime: Timestamp, size: Int, probeClusterID: Int? = nil) {
        self.sequenceNumber = sequenceNumber
        self.sendTime = sendTime
        self.receiveTime = receiveTime
        self.size = size
        self.probeClusterID = probeClusterID
    }
}

/// What one transport-cc feedback message said about the packets it covered.
public struct TransportFeedbackCounts: Hashable, Sendable, Codable {
    /// Packets reported as received for the first time.
    public var received = 0
    /// Packets reported as lost for the first time.
    public var lost = 0
    /// Packets an earlier report called lost that this one reports received: they yield
    /// feedback, but stay counted among the lost so no packet is counted twice.
    public var recovered = 0
    /// Reported numbers the history could not use: never sent, already acknowledged, or
    /// forgotten because the history's ring has moved past them.
    public var unknown = 0

    /// Counts of zero.
    public init() {}

    /// Packets newly resolved one way or the other: the denominator of a loss fraction.
    public var resolved: Int { received + lost }
}
