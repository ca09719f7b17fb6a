public import ConferMedia

/// Consent to send media to a peer's address, after RFC 7675 (consent freshness), for media
/// on plain UDP without ICE.
///
/// A peer's address arrives through signaling, and anyone who may announce one could name a
/// machine that never asked for media: the stream would go there, a reflection. So an
/// announced address gets media only once a packet that authenticates with the session's
/// keys has come from it, and stops getting media when none has come for ``lifetime``.
/// Until then the sender may send it small probes, so that two peers who both wait for
/// consent (a call) can give it to each other: the first at once, the next
/// ``firstProbeInterval`` later, each gap then twice the last up to ``probeInterval``. The
/// first ones come soon because the first may arrive before the other side has heard,
/// through its signaling, whose address this is.
///
/// A value without a clock: the caller says when.
public struct MediaConsent: Sendable, Equatable {
    /// RFC 7675 §5.1: consent ends 30 s after the last packet that authenticated.
    public static let defaultLifetime = TimeDelta.seconds(30)
    /// Probes to an address without consent, in the end two a second.
    public static let defaultProbeInterval = TimeDelta.milliseconds(500)
    /// The gap after the first probe.
    public static let firstProbeInterval = TimeDelta.milliseconds(20)

    /// How long consent lasts after the last packet that authenticated.
    public let lifetime: TimeDelta
    /// The longest gap between two probes, reached by doubling from ``firstProbeInterval``.
    public let probeInterval: TimeDelta
    /// The address media goes to, in the numeric form received datagrams report their source.
    public private(set) var address: UDPAddress?
    /// How many times consent was given: the first time, and again after each time it ran out.
    public private(set) var grants = 0
    private var lastAuthenticated: Timestamp?
    private var nextProbe: Timestamp?
    private var probeGap = TimeDelta.zero

    /// Consent for `address` (none yet), lasting `lifetime`.
    public init(address: UDPAddress? = nil, lifetime: TimeDelta = Self.defaultLifetime,
                probeInterval: TimeDelta = Self.defaultProbeInterval) {
        self.address = address
        self.lifetime = lifetime
        self.probeInterval = probeInterval
    }

    /// The peer announced `address`. Another address than before starts without consent:
    /// what came from the old one says nothing of the new.
    public mutating func announce(_ address: UDPAddress) {
        guard address != self.address else { return }
        self.address = address
        lastAuthenticated = nil
        nextProbe = nil
    }

    /// A packet from `source` that authenticated arrived at `now`. Returns true when this
    /// gives consent that was not in force (the first time, or after it ran out): the caller
    /// then sends what a new receiver needs, such as a keyframe, since what it would have
    /// sent before went nowhere. A packet from any other address than the announced one
    /// changes nothing.
    public mutating func authenticated(from source: UDPAddress, at now: Timestamp) -> Bool {
        guard source == address else { return false }
        let granted = !permits(at: now)
        if lastAuthenticated.map({ now > $0 }) ?? true { lastAuthenticated = now }
        if granted { grants += 1 }
        return granted
    }

    /// Whether media may go to the address at `now`.
    public func permits(at now: Timestamp) -> Bool {
        guard let lastAuthenticated else { return false }
        return now - lastAuthenticated < lifetime
    }

    /// Whether to send a probe at `now`: there is an address without consent, and the
    /// probe's time has come. True counts the probe as sent. Consent that runs out starts the
    /// probes over from the first.
    public mutating func takeProbe(at now: Timestamp) -> Bool {
        guard address != nil, !permits(at: now) else {
            nextProbe = nil
            return false
        }
        if nextProbe == nil { probeGap = min(Self.firstProbeInterval, probeInterval) }
        if let nextProbe, now < nextProbe { return false }
        nextProbe = now + probeGap
        probeGap = min(probeGap + probeGap, probeInterval)
        return true
    }
}
