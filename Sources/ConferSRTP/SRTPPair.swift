/// The SRTP and SRTCP sessions of one direction of a transport, made from one key: what the
/// send transport, the receive pipeline's inbound side and the live receiver each hold.
/// (A side that only sends or only reads RTCP holds a single ``SRTPSession``.)
///
/// RTP and RTCP keep sessions of their own so that neither's replay window or counters
/// depend on how the other is interleaved on the wire. Not `Sendable`: one owner uses it.
public struct SRTPPair {
    /// Protects or unprotects RTP.
    public let rtp: SRTPSession
    /// Protects or unprotects RTCP.
    public let rtcp: SRTPSession

    /// The two sessions of `direction` for `key`.
    public init(key: SRTPMasterKey, direction: SRTPSession.Direction) throws(SRTPError) {
        rtp = try SRTPSession(key: key, direction: direction)
        rtcp = try SRTPSession(key: key, direction: direction)
    }

    /// Both sessions' counters added together.
    public var stats: SRTPStats {
        var total = rtp.stats
        let control = rtcp.stats
        let counters: [WritableKeyPath<SRTPStats, UInt64>] = [\.packetsProtected, \.packetsUnprotected,
                                                             \.authenticationFailures, \.replays, \.otherFailures]
        for counter in counters { total[keyPath: counter] += control[keyPath: counter] }
        return total
    }
}
