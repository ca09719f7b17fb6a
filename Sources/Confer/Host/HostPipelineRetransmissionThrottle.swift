import ConferMedia

/// Which composite packets were resent to one participant and when, so each is resent to
/// it at most once per round trip (libwebrtc's rule).
///
/// The host's packet history is shared by every participant, and its own once-per-RTT
/// throttle would let one participant's NACK refuse another's; so the host asks the
/// history with no throttle and keeps this per-participant record instead. A fixed ring
/// indexed by sequence number, the history's size: bounded, and allocation-free per NACK.
struct HostPipelineRetransmissionThrottle {
    private var sequenceNumbers: [UInt16]
    private var resentAt: [Timestamp?]
    private let mask: Int
    /// The numbers of the NACK being answered that may be resent (reused storage).
    private(set) var allowed: [UInt16] = []
    /// Requests refused because the packet went to this participant less than an RTT ago.
    private(set) var throttled = 0

    /// A record of `capacity` packets (rounded up to a power of two, at least 16).
    init(capacity: Int) {
        var size = 16
        while size < min(capacity, 32_768) { size <<= 1 }
        sequenceNumbers = Array(repeating: 0, count: size)
        resentAt = Array(repeating: nil, count: size)
        mask = size - 1
        allowed.reserveCapacity(size)
    }

    /// Fills ``allowed`` with those of `requested` not resent within `rtt` before `now`,
    /// and records them as resent now.
    mutating func filter(_ requested: [UInt16], rtt: TimeDelta, at now: Timestamp) {
        allowed.removeAll(keepingCapacity: true)
        for number in requested {
            let index = Int(number) & mask
            if sequenceNumbers[index] == number, let last = resentAt[index], now - last < rtt {
                throttled += 1
                continue
            }
            sequenceNumbers[index] = number
            resentAt[index] = now
            allowed.append(number)
        }
    }

    /// Forgets that `number` was resent: it was refused after all (over the budget), so a
    /// later NACK may have it within the round trip.
    mutating func forget(_ number: UInt16) {
        let index = Int(number) & mask
        if sequenceNumbers[index] == number { resentAt[index] = nil }
    }
}
