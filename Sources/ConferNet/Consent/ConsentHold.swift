public import ConferMedia

/// Whether to keep what is for an address still waiting for its first consent
/// (``MediaConsent``), to send it the moment consent comes, instead of dropping it.
///
/// A receiver that joins needs a keyframe before it can show anything. Encoding and pacing
/// one takes a composite tick and a few tens of milliseconds; the consent check takes about
/// as long. Asking for the keyframe only once consent is given puts the two one after the
/// other; holding what is sent meanwhile lets them overlap, and the keyframe goes out with
/// the grant. Nothing held goes anywhere without consent, so the check loses nothing.
///
/// The hold is for the first grant only, and is bounded: it ends for good, dropping all it
/// held, when it would keep more than ``maximumDatagrams`` datagrams or ``maximumBytes``
/// bytes, or hold one longer than ``maximumAge`` (an address that does not answer soon is
/// one that may never; later pictures are worth nothing without the keyframe held first).
/// The caller then asks for a keyframe when consent comes, as it would without a hold.
///
/// A value without a clock of its own: the caller says when, and stores the datagrams.
public struct ConsentHold: Sendable, Equatable {
    /// What to do with a datagram that cannot go yet.
    public enum Decision: Sendable, Equatable {
        /// Keep it, after those kept before.
        case hold
        /// Drop it: the hold is over (or was never wanted).
        case drop
        /// Drop it and all that was kept: the hold has just ended on one of its bounds.
        case dropAll
    }

    /// Holding at most half a second: consent usually comes within tens of milliseconds.
    public static let defaultMaximumAge = TimeDelta.milliseconds(500)

    /// The most datagrams kept.
    public let maximumDatagrams: Int
    /// The most bytes kept.
    public let maximumBytes: Int
    /// The longest a datagram is kept.
    public let maximumAge: TimeDelta
    /// Whether it is still holding: until the first grant or one of its bounds.
    public private(set) var isHolding = true
    /// Datagrams kept now.
    public private(set) var datagrams = 0
    /// Bytes kept now.
    public private(set) var bytes = 0
    /// When the oldest datagram kept now was kept.
    public private(set) var oldest: Timestamp?
    /// Datagrams sent at the grant.
    public private(set) var released = 0
    /// Datagrams dropped once kept, when the hold ended on a bound.
    public private(set) var discarded = 0

    /// A hold keeping at most `maximumDatagrams` datagrams and `maximumBytes` bytes, none
    /// for longer than `maximumAge`.
    public init(maximumDatagrams: Int = 512, maximumBytes: Int = 512 * 1024, maximumAge: TimeDelta = Self.defaultMaximumAge) {
        self.maximumDatagrams = maximumDatagrams
        self.maximumBytes = maximumBytes
        self.maximumAge = maximumAge
    }

    /// A datagram of `byteCount` bytes, for an address without consent, at `now`.
    public mutating func decide(byteCount: Int, at now: Timestamp) -> Decision {
        guard isHolding else { return .drop }
        if datagrams + 1 > maximumDatagrams || bytes + byteCount > maximumBytes || aged(at: now) {
            end(discarding: true)
            return .dropAll
        }
        if oldest == nil { oldest = now }
        datagrams += 1
        bytes += byteCount
        return .hold
    }

    /// Consent was given at `now`: true to send everything kept, in the order it was kept;
    /// false to drop it (it is too old, or the hold ended before), and then the caller asks
    /// for what a new receiver needs, such as a keyframe. Either way the hold is over.
    public mutating func release(at now: Timestamp) -> Bool {
        guard isHolding else { return false }
        if aged(at: now) {
            end(discarding: true)
            return false
        }
        released += datagrams
        end(discarding: false)
        return true
    }

    /// Ends the hold: the caller drops what is kept (a member that leaves, say).
    public mutating func abandon() {
        guard isHolding else { return }
        end(discarding: true)
    }

    private func aged(at now: Timestamp) -> Bool {
        guard let oldest else { return false }
        return now - oldest > maximumAge
    }

    private mutating func end(discarding: Bool) {
        if discarding { discarded += datagrams }
        isHolding = false
        datagrams = 0
        bytes = 0
        oldest = nil
    }
}
