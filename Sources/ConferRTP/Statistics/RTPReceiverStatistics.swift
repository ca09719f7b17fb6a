public import ConferMedia

/// Reception statistics for one source, computed exactly as RFC 3550 Appendix A does,
/// and the report block (§6.4.1) they produce.
///
/// - Sequence validity and counting follow A.1 `update_seq`: a new source is on probation
///   until ``minimumSequential`` packets arrive in sequence (the probation packets are not
///   counted, and the base is the packet that ends probation); jumps of up to 3000 ahead
///   are gaps, packets up to 100 behind are reordered or duplicated and still counted,
///   larger jumps are ignored unless two in sequence signal a restart, which re-bases.
/// - Duplicates count as received, as A.1 counts them, so ``cumulativeLost`` (expected −
///   received) can go negative. Report blocks never carry a negative loss: like libwebrtc,
///   a negative value is reported as 0 and the shortfall is remembered as an offset, so
///   later real losses are reported from there. ``duplicatePackets`` counts duplicates
///   seen within the last 1024 sequence numbers.
/// - Fraction lost is A.3's per-interval figure (between calls to ``makeReportBlock(now:)``),
///   capped at 255 where A.3's 8-bit arithmetic would wrap 256 to 0.
/// - Jitter is A.8's floating-point estimator, J += (|D| − J)/16, updated for every
///   counted packet after the first; reports carry it truncated to whole timestamp units.
///
/// A value type with no clock: every arrival and "now" is passed in.
public struct RTPReceiverStatistics: Sendable {
    /// A.1's MAX_DROPOUT: the largest forward jump treated as a gap.
    public static let maxDropout = 3000
    /// A.1's MAX_MISORDER: the furthest back a packet may be and still count.
    public static let maxMisorder = 100
    private static let sequenceModulus = 1 << 16
    private static let historyBits = 1024

    /// The source these statistics describe.
    public let ssrc: UInt32
    /// The RTP clock rate of its payload, in Hz.
    public let clockRate: Int
    /// A.1's MIN_SEQUENTIAL: packets in sequence needed before a source is valid (1: none).
    public let minimumSequential: Int

    private var started = false
    private var probation = 0
    private var maxSequence: UInt16 = 0
    private var cycles: Int64 = 0
    private var baseSequence: Int64 = 0
    private var badSequence = sequenceModulus + 1
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    private var lossOffset: Int64 = 0

    private var transit: Int32 = 0
    private var hasTransit = false

    private var history: [UInt64]
    private var historyTop: Int64 = -1

    private var lastSenderReport: CompactNTPTime?
    private var lastSenderReportArrival: Timestamp = .zero

    /// Packets counted as received (A.1 `received`, duplicates included).
    public private(set) var packetsReceived: Int64 = 0
    /// Packets recognised as exact repeats of one received in the last 1024 numbers.
    public private(set) var duplicatePackets: Int64 = 0
    /// Counted packets that arrived after a higher sequence number.
    public private(set) var reorderedPackets: Int64 = 0
    /// The A.8 jitter estimate in timestamp units, unrounded.
    public private(set) var jitterEstimate: Double = 0

    /// Statistics for `ssrc`, whose payload clock runs at `clockRate` Hz.
    public init(ssrc: UInt32, clockRate: Int, minimumSequential: Int = 2) {
        self.ssrc = ssrc
        self.clockRate = max(clockRate, 1)
        self.minimumSequential = max(minimumSequential, 1)
        history = Array(repeating: 0, count: Self.historyBits / 64)
    }

    /// Whether the source has passed probation and is being counted.
    public var isValid: Bool { started && probation == 0 }

    /// The highest sequence number seen, extended by the number of wrap-arounds (A.1).
    public var extendedHighestSequenceNumber: Int64 { cycles + Int64(maxSequence) }

    /// Packets expected: extended highest − base + 1 (A.3); 0 before the source is valid.
    public var expectedPackets: Int64 { isValid ? extendedHighestSequenceNumber - baseSequence + 1 : 0 }

    /// Expected − received, as A.3 defines it; negative when duplicates outnumber losses.
    public var cumulativeLost: Int64 { expectedPackets - packetsReceived }

    /// The jitter a report carries: the estimate truncated to timestamp units (A.8).
    public var jitter: UInt32 { UInt32(min(jitterEstimate, Double(UInt32.max))) }

    /// The jitter estimate in seconds.
    public var jitterSeconds: Double { jitterEstimate / Double(clockRate) }

    /// Accounts for one packet that arrived at `arrival`.
    ///
    /// - Returns: whether the packet was counted; false while the source is on probation
    ///   and for a large jump not (yet) confirmed as a restart.
    @discardableResult
    public mutating func receive(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrival: Timestamp) -> Bool {
        guard updateSequence(sequenceNumber) else { return false }
        updateJitter(rtpTimestamp: rtpTimestamp, arrival: arrival)
        return true
    }

    /// Remembers a sender report from this source that arrived at `arrival`, for the LSR
    /// and DLSR of the next report block.
    public mutating func receivedSenderReport(ntpTime: NTPTime, at arrival: Timestamp) {
        lastSenderReport = ntpTime.compact
        lastSenderReportArrival = arrival
    }

    /// The report block for this source at `now`, closing the current A.3 interval; nil
    /// while the source is not valid (nothing to report yet).
    public mutating func makeReportBlock(now: Timestamp) -> RTCPReportBlock? {
        guard isValid else { return nil }
        let expected = expectedPackets
        let expectedInterval = expected - expectedPrior
        expectedPrior = expected
        let receivedInterval = packetsReceived - receivedPrior
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        var fraction: Int64 = 0
        if expectedInterval > 0, lostInterval > 0 {
            fraction = min((lostInterval << 8) / expectedInterval, 255)
        }

        let lost = cumulativeLost
        var reported = lost + lossOffset
        if reported < 0 {
            reported = 0
            lossOffset = -lost
        }
        reported = min(reported, Int64(RTCPReportBlock.maxCumulativeLost))

        var lsr = CompactNTPTime(rawValue: 0)
        var dlsr = CompactNTPTime(rawValue: 0)
        if let lastSenderReport {
            lsr = lastSenderReport
            dlsr = CompactNTPTime(now - lastSenderReportArrival)
        }
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: UInt8(fraction), cumulativeLost: Int32(reported),
            extendedHighestSequenceNumber: UInt32(truncatingIfNeeded: extendedHighestSequenceNumber),
            jitter: jitter, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    // MARK: A.1

    private mutating func initSequence(_ sequenceNumber: UInt16) {
        baseSequence = Int64(sequenceNumber)
        maxSequence = sequenceNumber
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        packetsReceived = 0
        receivedPrior = 0
        expectedPrior = 0
        lossOffset = 0
        for index in history.indices { history[index] = 0 }
        historyTop = -1
    }

    private mutating func updateSequence(_ sequenceNumber: UInt16) -> Bool {
        if !started {
            started = true
            initSequence(sequenceNumber)
            maxSequence = sequenceNumber &- 1
            probation = minimumSequential
        }
        let delta = Int(sequenceNumber &- maxSequence)
        if probation > 0 {
            guard sequenceNumber == maxSequence &+ 1 else {
                probation = minimumSequential - 1
                maxSequence = sequenceNumber
                return false
            }
            probation -= 1
            maxSequence = sequenceNumber
            guard probation == 0 else { return false }
            initSequence(sequenceNumber)
        } else if delta < Self.maxDropout {
            if sequenceNumber < maxSequence { cycles += Int64(Self.sequenceModulus) }
            maxSequence = sequenceNumber
        } else if delta <= Self.sequenceModulus - Self.maxMisorder {
            guard Int(sequenceNumber) == badSequence else {
                badSequence = (Int(sequenceNumber) + 1) & (Self.sequenceModulus - 1)
                return false
            }
            // Two sequential packets after a big jump: the sender restarted; re-base.
            initSequence(sequenceNumber)
        } else {
            reorderedPackets += 1
        }
        packetsReceived += 1
        noteForDuplicates(sequenceNumber)
        return true
    }

    /// Marks the packet in the 1024-number history and counts it if it was already there.
    private mutating func noteForDuplicates(_ sequenceNumber: UInt16) {
        // Every counted packet is the highest or at most MAX_MISORDER behind it, so its
        // extended number is the highest minus that (wrapping) distance.
        let extended = extendedHighestSequenceNumber - Int64(maxSequence &- sequenceNumber)
        if extended > historyTop {
            // Clear the slots the window moves over.
            let steps = min(extended - historyTop, Int64(Self.historyBits))
            for step in 0 ..< steps { setHistory(historyTop + 1 + step, false) }
            historyTop = extended
        } else if historyTop - extended >= Int64(Self.historyBits) {
            return  // too old to know
        }
        if history(extended) { duplicatePackets += 1 }
        setHistory(extended, true)
    }

    private func history(_ extended: Int64) -> Bool {
        let slot = Int(extended & Int64(Self.historyBits - 1))
        return history[slot >> 6] & (1 << UInt64(slot & 63)) != 0
    }

    private mutating func setHistory(_ extended: Int64, _ value: Bool) {
        let slot = Int(extended & Int64(Self.historyBits - 1))
        if value {
            history[slot >> 6] |= 1 << UInt64(slot & 63)
        } else {
            history[slot >> 6] &= ~(1 << UInt64(slot & 63))
        }
    }

    // MARK: A.8

    private mutating func updateJitter(rtpTimestamp: UInt32, arrival: Timestamp) {
        // Arrival in timestamp units; only differences matter, so 32-bit wrapping is fine.
        let arrivalTicks = UInt32(truncatingIfNeeded: arrival.ticks(rate: clockRate))
        let newTransit = Int32(bitPattern: arrivalTicks &- rtpTimestamp)
        defer {
            transit = newTransit
            hasTransit = true
        }
        guard hasTransit else { return }
        let difference = Double((Int64(newTransit) - Int64(transit)).magnitude)
        jitterEstimate += (difference - jitterEstimate) / 16
    }
}
