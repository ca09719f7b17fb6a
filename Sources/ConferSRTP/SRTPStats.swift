/// Counters of one ``SRTPSession``, RTP and RTCP together, as a value to print or compare.
public struct SRTPStats: Sendable, Equatable, Codable {
    /// Packets protected successfully.
    public var packetsProtected: UInt64 = 0
    /// Packets unprotected successfully.
    public var packetsUnprotected: UInt64 = 0
    /// Packets dropped because their tag did not verify.
    public var authenticationFailures: UInt64 = 0
    /// Packets dropped by the replay check (or, when sending, refused for a reused index).
    public var replays: UInt64 = 0
    /// Every other failed call: short packets, small buffers, wrong direction, libsrtp faults.
    public var otherFailures: UInt64 = 0

    /// All zeros.
    public init() {}

    mutating func count(_ error: SRTPError) {
        switch error.kind {
        case .authenticationFailed: authenticationFailures += 1
        case .replayed: replays += 1
        default: otherFailures += 1
        }
    }
}
