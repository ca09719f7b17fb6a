public import ConferMedia

/// Which SSRC one received stream follows, so that RTP-shaped datagrams from elsewhere
/// cannot take it over (a plain-RTP receiver has no authentication to lean on).
///
/// - A new SSRC is on probation until ``requiredSequential`` of its packets have come in
///   sequence (RFC 3550 A.1's MIN_SEQUENTIAL); a spray of random SSRCs never gets there.
///   The packet held while on probation is handed back when the source is taken up, so a
///   real stream loses nothing to the check.
/// - A validated newcomer replaces the current source only once the current one has been
///   silent for ``takeoverSilence``: a sender that restarted (a new SSRC) is followed, while
///   a second stream beside a live one never takes over.
/// - At most ``maximumCandidates`` SSRCs are on probation at once (the least recently heard
///   makes room), so a flood cannot grow the state.
public struct RTPSourceProbation: Sendable {
    /// Packets in sequence that validate a new source.
    public static let requiredSequential = 2
    /// SSRCs on probation at once.
    public static let maximumCandidates = 8
    /// Packets held for a validated source waiting to take over (its first keyframe, say).
    public static let maximumHeld = 128

    /// A packet held while its source was on probation, with its arrival time.
    public struct Held: Sendable, Equatable {
        /// The datagram's bytes.
        public var bytes: [UInt8]
        /// When it arrived.
        public var arrival: Timestamp
    }

    /// What to do with a packet.
    public enum Verdict: Sendable, Equatable {
        /// From the current source: take it.
        case accept
        /// A new source taken up: first take the packets held for it, in order, then this one.
        case takeUp(replay: [Held])
        /// Held while its source is on probation or waits to take over; `dropped` packets
        /// held earlier were let go.
        case hold(dropped: Int)
    }

    private struct Candidate: Sendable {
        var ssrc: UInt32
        var nextSequenceNumber: UInt16
        var inSequence: Int
        var held: [Held]
        var lastHeard: Timestamp
    }

    /// How long the current source must be silent before a validated one replaces it.
    public let takeoverSilence: TimeDelta
    /// The source followed, once one has been validated.
    public private(set) var current: UInt32?
    private var lastHeard: Timestamp?
    private var candidates: [Candidate] = []

    /// A stream with no source yet.
    public init(takeoverSilence: TimeDelta = .milliseconds(200)) {
        self.takeoverSilence = takeoverSilence
    }

    /// Packets held now.
    public var heldPackets: Int { candidates.reduce(0) { $0 + $1.held.count } }

    /// Decides about a packet of `ssrc` numbered `sequenceNumber` (its bytes are copied if
    /// it must be held) arriving at `arrival`.
    public mutating func admit(ssrc: UInt32, sequenceNumber: UInt16, bytes: UnsafeRawBufferPointer, at arrival: Timestamp) -> Verdict {
        if ssrc == current {
            lastHeard = arrival
            return .accept
        }
        var dropped = 0
        let index: Int
        if let found = candidates.firstIndex(where: { $0.ssrc == ssrc }) {
            index = found
            if candidates[index].nextSequenceNumber == sequenceNumber {
                candidates[index].inSequence += 1
            } else if candidates[index].inSequence < Self.requiredSequential {
                // Out of sequence before validation: probation starts over from this packet.
                dropped += candidates[index].held.count
                candidates[index].held.removeAll()
                candidates[index].inSequence = 1
            }
        } else {
            if candidates.count >= Self.maximumCandidates,
               let oldest = candidates.indices.min(by: { candidates[$0].lastHeard < candidates[$1].lastHeard }) {
                dropped += candidates[oldest].held.count
                candidates.remove(at: oldest)
            }
            candidates.append(Candidate(ssrc: ssrc, nextSequenceNumber: sequenceNumber, inSequence: 1, held: [], lastHeard: arrival))
            index = candidates.count - 1
        }
        // A validated source tolerates reordering and loss (it is in sequence already).
        if candidates[index].inSequence < Self.requiredSequential || sequenceNumber &- candidates[index].nextSequenceNumber < 0x8000 {
            candidates[index].nextSequenceNumber = sequenceNumber &+ 1
        }
        candidates[index].lastHeard = arrival
        let validated = candidates[index].inSequence >= Self.requiredSequential
        let currentAlive = current != nil && lastHeard.map { arrival - $0 < takeoverSilence } ?? false
        guard validated, !currentAlive else {
            // On probation, or validated while the source followed is alive: held (a
            // restarted sender's first keyframe survives the wait), the oldest let go.
            if candidates[index].held.count >= Self.maximumHeld {
                candidates[index].held.removeFirst()
                dropped += 1
            }
            candidates[index].held.append(Held(bytes: Array(bytes), arrival: arrival))
            return .hold(dropped: dropped)
        }
        let replay = candidates[index].held
        candidates.remove(at: index)
        current = ssrc
        lastHeard = arrival
        return .takeUp(replay: replay)
    }
}
