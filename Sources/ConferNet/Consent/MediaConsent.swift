public import ConferMedia

/// Consent to send media to a peer's address, after RFC 7675 (consent freshness), for media
/// on plain UDP without ICE.
///
/// A peer's address arrives through signaling, and anyone who may announce one could name a
/// machine that never asked for media: the stream would go there, a reflection. So an
/// announced address gets media only once it has answered a challenge: a random nonce sent
/// there, which the answer repeats under the peer's key. Only whoever reads what arrives at
/// the address can answer, so a forged source address, even on packets that authenticate
/// (the peer itself forging them), gives no consent. Once given, consent lasts while
/// packets that authenticate keep coming from the address, and ends when none has come for
/// ``lifetime``; a new challenge, with a new nonce, is then needed.
///
/// Challenges go out as small probes: the first at once, the next ``firstProbeInterval``
/// later, each gap then twice the last up to ``probeInterval``. The first ones come soon
/// because the first may arrive before the other side has heard, through its signaling,
/// whose address this is. A side answers challenges only from the address it knows as the
/// peer's, and at most one per ``minimumAnswerGap``, so its answers cannot be turned into a
/// stream at someone else.
///
/// A peer may announce more than one address for the same socket: behind a NAT, the NAT's
/// mapping (seen by a STUN server) and the address it is bound to, which a device on the
/// same LAN reaches when the NAT does not send datagrams for its own public address back in
/// (hairpinning). Until one consents, each challenge goes to every ``candidates`` address; the
/// first to answer becomes ``address``, as an ICE agent nominates the first pair that
/// succeeds. Challenges from any of them are answered.
///
/// A value without a clock or randomness of its own: the caller says when, and draws.
public struct MediaConsent: Sendable, Equatable {
    /// RFC 7675 §5.1: consent ends 30 s after the last packet that authenticated.
    public static let defaultLifetime = TimeDelta.seconds(30)
    /// Probes to an address without consent, in the end two a second.
    public static let defaultProbeInterval = TimeDelta.milliseconds(500)
    /// The gap after the first probe.
    public static let firstProbeInterval = TimeDelta.milliseconds(20)
    /// The shortest gap between two answers: a peer probes no faster than every 20 ms.
    public static let minimumAnswerGap = TimeDelta.milliseconds(10)
    /// How long nothing may have authenticated at the peer's address before a datagram from
    /// another address moves the peer there.
    public static let moveAfterSilence = TimeDelta.seconds(2)
    /// The shortest gap between two moves: forged sources cannot make the challenges wander.
    public static let minimumMoveGap = TimeDelta.seconds(1)

    /// How long consent lasts after the last packet that authenticated.
    public let lifetime: TimeDelta
    /// The longest gap between two probes, reached by doubling from ``firstProbeInterval``.
    public let probeInterval: TimeDelta
    /// The address media goes to, in the numeric form received datagrams report their source:
    /// the first of ``candidates`` until one answers a challenge, then the one that answered.
    public private(set) var address: UDPAddress?
    /// Every address the peer announced (the first the one it prefers), or where it was
    /// moved to; challenges go to each while there is no consent.
    public private(set) var candidates: [UDPAddress] = []
    /// How many times consent was given: the first time, and again after each time it ran out.
    public private(set) var grants = 0
    /// Challenges taken to send.
    public private(set) var challengesSent = 0
    /// Answers that gave nothing: a wrong or stale nonce, or another address than the peer's.
    public private(set) var answersRefused = 0
    /// Times the peer was moved to where its datagrams came from (``move(to:at:)``).
    public private(set) var moves = 0
    private var movedAt: Timestamp?
    private var lastAuthenticated: Timestamp?
    private var challenge: UInt128?
    /// Whether ``challenge`` was answered: its nonce gives no consent again once it runs out.
    private var challengeAnswered = false
    private var nextProbe: Timestamp?
    private var probeGap = TimeDelta.zero
    private var lastAnswer: Timestamp?

    /// Consent for `address` (none yet), lasting `lifetime`.
    public init(address: UDPAddress? = nil, lifetime: TimeDelta = Self.defaultLifetime,
                probeInterval: TimeDelta = Self.defaultProbeInterval) {
        self.address = address
        candidates = address.map { [$0] } ?? []
        self.lifetime = lifetime
        self.probeInterval = probeInterval
    }

    /// The peer announced `address`, and perhaps `alternates` for the same socket (duplicates
    /// are dropped). Other addresses than before start without consent: what came from the
    /// old ones says nothing of the new. The same addresses again change nothing.
    public mutating func announce(_ address: UDPAddress, alternates: [UDPAddress] = []) {
        var announced = [address]
        for alternate in alternates where !announced.contains(alternate) { announced.append(alternate) }
        guard announced != candidates else { return }
        self.address = address
        candidates = announced
        lastAuthenticated = nil
        challenge = nil
        challengeAnswered = false
        nextProbe = nil
    }

    /// The nonce to send in a challenge at `now`, to each of ``candidates``, or nil: there is
    /// no address without consent, or the probe's time has not come. A nonce is drawn from
    /// `random` once per attempt and sent again until answered; consent that runs out starts
    /// the probes over from the first, with a new nonce. `random` must be unpredictable (the system's) for
    /// the check to mean anything: a nonce that can be guessed can be answered by anyone.
    public mutating func takeChallenge(at now: Timestamp, using random: inout some RandomNumberGenerator) -> UInt128? {
        guard address != nil, !permits(at: now) else {
            nextProbe = nil
            return nil
        }
        if nextProbe == nil { probeGap = min(Self.firstProbeInterval, probeInterval) }
        if let nextProbe, now < nextProbe { return nil }
        nextProbe = now + probeGap
        probeGap = min(probeGap + probeGap, probeInterval)
        if challenge == nil || challengeAnswered {
            challenge = UInt128(random.next()) << 64 | UInt128(random.next())
            challengeAnswered = false
        }
        challengesSent += 1
        return challenge
    }

    /// An answer that authenticated, repeating `nonce`, came from `source` at `now`. Returns
    /// true when this gives consent that was not in force (the first time, or after it ran
    /// out): the caller then sends what a new receiver needs, such as a keyframe, since what
    /// it would have sent before went nowhere; `source` is then ``address``. An answer from
    /// an address the peer did not announce, or with another nonce than the outstanding
    /// challenge's, gives nothing; a repeated answer (to a challenge sent twice, or from a
    /// second candidate) only keeps consent in force where it was given.
    public mutating func answered(_ nonce: UInt128, from source: UDPAddress, at now: Timestamp) -> Bool {
        guard candidates.contains(source), let challenge, nonce == challenge else {
            answersRefused += 1
            return false
        }
        guard !challengeAnswered else {
            authenticated(from: source, at: now)
            return false
        }
        address = source
        challengeAnswered = true
        lastAuthenticated = max(lastAuthenticated ?? now, now)
        grants += 1
        return true
    }

    /// A packet from `source` that authenticated arrived at `now`: consent in force for that
    /// address lasts on. It never gives consent that is not in force, since anyone who holds
    /// the key can forge where a packet comes from.
    public mutating func authenticated(from source: UDPAddress, at now: Timestamp) {
        guard source == address, permits(at: now), let lastAuthenticated, now > lastAuthenticated else { return }
        self.lastAuthenticated = now
    }

    /// Whether media may go to the address at `now`.
    public func permits(at now: Timestamp) -> Bool {
        guard let lastAuthenticated else { return false }
        return now - lastAuthenticated < lifetime
    }

    /// How long nothing has authenticated from the address at `now` (an answer or another
    /// packet since consent was given); nil before consent. A peer long silent where it
    /// consented, but heard elsewhere, may have been given a new address by its NAT.
    public func silence(at now: Timestamp) -> TimeDelta? {
        lastAuthenticated.map { now - $0 }
    }

    /// Whether a datagram that authenticated under the peer's keys but came from another
    /// address than the peer's moves the peer there at `now`. A NAT maps a peer to another
    /// address than the one it announced (its inside), and may map it anew mid-call; ICE
    /// takes such a source as a peer-reflexive candidate. It moves when the address has no
    /// consent, or nothing has authenticated there for ``moveAfterSilence`` (a peer heard
    /// where its address says stays there), and not within ``minimumMoveGap`` of the last
    /// move. Moving gives nothing by itself: the new address is challenged afresh, so a peer
    /// forging another machine's address on its own packets gets only challenges sent there.
    public func mayMove(at now: Timestamp) -> Bool {
        if let movedAt, now - movedAt < Self.minimumMoveGap { return false }
        return !permits(at: now) || silence(at: now).map { $0 >= Self.moveAfterSilence } ?? true
    }

    /// Moves the peer to `address`, where a datagram that authenticated came from at `now`
    /// (after ``mayMove(at:)`` said so): as ``announce(_:)``, without consent until the new
    /// address answers a challenge, the first of which is due at once.
    public mutating func move(to address: UDPAddress, at now: Timestamp) {
        guard address != self.address else { return }
        announce(address)
        movedAt = now
        moves += 1
    }

    /// Whether to answer a challenge (one that authenticated) from `source` at `now`, to
    /// `source`: it comes from one of the peer's ``candidates``, and the last answer was at
    /// least ``minimumAnswerGap`` ago. True counts the answer as sent.
    public mutating func answers(challengeFrom source: UDPAddress, at now: Timestamp) -> Bool {
        guard candidates.contains(source) else { return false }
        if let lastAnswer, now - lastAnswer < Self.minimumAnswerGap { return false }
        lastAnswer = now
        return true
    }
}
