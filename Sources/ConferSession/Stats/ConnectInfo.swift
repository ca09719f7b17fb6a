/// The live figures one member reports about its media, once a second: what it receives,
/// what it sends, and what the far end says it got. The host's figures also give its
/// composite's send rate.
public struct ConnectInfo: Sendable, Codable, Hashable {
    /// Frames per second decoded from what the member receives.
    public var receiveFrameRate: Double = 0
    /// Width of the last decoded frame received.
    public var receiveWidth: Int = 0
    /// Height of the last decoded frame received.
    public var receiveHeight: Int = 0
    /// Frames per second the member sends (the host: the composite).
    public var sendFrameRate: Double = 0
    /// Audio packets per second sent.
    public var audioPacketsSentPerSecond: Double = 0
    /// Audio packets per second received.
    public var audioPacketsReceivedPerSecond: Double = 0
    /// Whether the member is speaking now (by its own level).
    public var speaking: Bool = false
    /// Bytes sent since the media started.
    public var bytesSent: Int = 0
    /// Bytes received since the media started.
    public var bytesReceived: Int = 0
    /// Packets this member found lost on what it receives.
    public var packetsLost: Int = 0
    /// Packets the far end reports lost of what this member sent (RTCP receiver reports).
    public var remotePacketsLost: Int = 0
    /// Bytes the far end reports having received of what this member sent, through the
    /// signaling (a participant: what the host received from it; the host: what every
    /// participant received of the composite), or 0 until it has said.
    public var remoteBytesReceived: Int = 0
    /// The host: what it received from each member (bytes, packets lost), by identity, so
    /// each member's figures can say what the far end got.
    public var receivedFrom: [String: Reception]? = nil
    /// Round-trip time to the far end in milliseconds, when known.
    public var roundTripMilliseconds: Double? = nil
    /// When the counting started (the first media), on the session clock.
    public var since: SessionTime? = nil

    /// No figures yet.
    public init() {}

    /// What one side received from another.
    public struct Reception: Sendable, Codable, Hashable {
        /// Bytes received.
        public var bytes: Int
        /// Packets found lost.
        public var packetsLost: Int

        /// A reception of `bytes` with `packetsLost` lost.
        public init(bytes: Int, packetsLost: Int) {
            self.bytes = bytes
            self.packetsLost = packetsLost
        }
    }
}
