public import ConferMedia

/// Decides which lost packets to ask for again and when (libwebrtc's `NackRequester`).
///
/// A gap in sequence numbers puts every missing number on a list. Each is NACKed once it
/// has been missing for the reordering delay — the median time that packets which came
/// late on their own (not retransmitted) were missing, over the last 64 of them, at least
/// ``Configuration/initialDelay`` — then again every retry interval
/// (the caller passes RTT plus jitter; never less than ``Configuration/minRetryInterval``)
/// until it arrives — by retransmission or just late, either way it is *recovered* — or
/// until it has been asked for ``Configuration/maxRetries`` times or has been missing for
/// longer than ``Configuration/maxAge``, when it is *given up*. The list holds at most
/// ``Configuration/maxListSize`` numbers: a larger gap gives up its oldest numbers and is
/// reported as an overflow, after which a keyframe is the better way out.
///
/// Sequence numbers here are unwrapped (64-bit, see ``SequenceUnwrapper``); NACK batches
/// are the 16-bit numbers that go on the wire. A plain value with no clock: the caller
/// passes the time. The list and the batch are reused, so steady state allocates nothing.
public struct NackTracker: Sendable {
    /// Retry and size limits.
    public struct Configuration: Sendable, Hashable {
        /// The least time a number must be missing before its first NACK.
        public var initialDelay: TimeDelta
        /// Whether the first NACK also waits out the reordering seen (libwebrtc waits for the
        /// median reordering distance, in packets; here it is the median delay, in time).
        public var waitsForReordering: Bool
        /// The shortest time between two NACKs for one number, whatever the RTT.
        public var minRetryInterval: TimeDelta
        /// How many times a number is asked for before it is given up.
        public var maxRetries: Int
        /// A number missing for longer than this is given up: it would arrive too late to play.
        public var maxAge: TimeDelta
        /// The most numbers on the list at once.
        public var maxListSize: Int

        /// Limits with the given values (libwebrtc's retry count and list size).
        public init(initialDelay: TimeDelta = .zero, waitsForReordering: Bool = true,
                    minRetryInterval: TimeDelta = .milliseconds(20),
                    maxRetries: Int = 10, maxAge: TimeDelta = .milliseconds(1000), maxListSize: Int = 1000) {
            self.initialDelay = initialDelay
            self.waitsForReordering = waitsForReordering
            self.minRetryInterval = minRetryInterval
            self.maxRetries = maxRetries
            self.maxAge = maxAge
            self.maxListSize = maxListSize
        }
    }

    /// What the tracker did so far.
    public struct Statistics: Sendable, Hashable, Codable {
        /// NACK batches handed out (one RTCP NACK packet each; W3C `nackCount`).
        public var nackCount = 0
        /// Sequence numbers in those batches, repeats included.
        public var packetsNacked = 0
        /// Sequence numbers found missing.
        public var packetsMissing = 0
        /// Missing numbers that arrived afterwards (retransmitted or late).
        public var packetsRecovered = 0
        /// Missing numbers given up (retries exhausted, too old, list overflow, or no longer needed).
        public var packetsGivenUp = 0
        /// Gaps too large for the list.
        public var listOverflows = 0
        /// Missing numbers that arrived on their own (reordered) after being NACKed: wasted requests.
        public var packetsNackedNeedlessly = 0

        /// All counters at zero.
        public init() {}
    }

    /// What ``packetArrived(_:isRetransmission:at:)`` found.
    public enum Arrival: Hashable, Sendable {
        /// Nothing to note: the next number, or one never missed.
        case inOrder
        /// The packet opened a gap of this many missing numbers.
        case gap(Int)
        /// The packet was on the list: it is recovered.
        case recovered
        /// The packet opened a gap larger than the list: the oldest missing numbers were given up.
        case overflow
    }

    private struct Entry {
        var sequenceNumber: Int64
        var missingSince: Timestamp
        var lastSentAt: Timestamp?
        var retries: Int
    }

    /// The limits in force.
    public var configuration: Configuration
    /// What happened so far.
    public private(set) var statistics = Statistics()
    /// The numbers given up by the last call (cleared at the start of every call that can
    /// give up). Of a gap too large for the list, the numbers never listed are summed up by
    /// the newest of them.
    public private(set) var givenUp: [Int64] = []

    /// Missing numbers, ascending.
    private var entries: [Entry] = []
    /// How long the last reordered packets were missing, in microseconds: a ring.
    private var reorderDelays = [Int64](repeating: 0, count: NackTracker.reorderSamples)
    private var reorderCount = 0
    private var reorderNext = 0
    private var sortedScratch = [Int64](repeating: 0, count: NackTracker.reorderSamples)
    private static let reorderSamples = 64
    /// The wait before a first NACK: the configured delay or the median reordering delay.
    public private(set) var firstRequestDelay: TimeDelta
    private var newest: Int64?
    private var batch: [UInt16] = []

    /// A tracker with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        firstRequestDelay = configuration.initialDelay
        entries.reserveCapacity(max(1, configuration.maxListSize))
        givenUp.reserveCapacity(64)
        batch.reserveCapacity(64)
    }

    /// How many numbers are on the list.
    public var pendingCount: Int { entries.count }
    /// The oldest number on the list.
    public var oldestPending: Int64? { entries.first?.sequenceNumber }
    /// Whether `sequenceNumber` is on the list.
    public func isPending(_ sequenceNumber: Int64) -> Bool { index(of: sequenceNumber) != nil }

    /// Notes the arrival of `sequenceNumber` at `now`.
    ///
    /// A retransmission newer than every packet seen opens no gap (libwebrtc ignores it too:
    /// it was asked for, so the gap it would open is already known or deliberately skipped).
    public mutating func packetArrived(_ sequenceNumber: Int64, isRetransmission: Bool, at now: Timestamp) -> Arrival {
        givenUp.removeAll(keepingCapacity: true)
        guard let newest else {
            if !isRetransmission { self.newest = sequenceNumber }
            return .inOrder
        }
        if sequenceNumber <= newest {
            guard let index = index(of: sequenceNumber) else { return .inOrder }
            let entry = entries.remove(at: index)
            statistics.packetsRecovered += 1
            if !isRetransmission {
                if entry.lastSentAt != nil { statistics.packetsNackedNeedlessly += 1 }
                noteReordering(now - entry.missingSince)
            }
            return .recovered
        }
        if isRetransmission { return .inOrder }
        self.newest = sequenceNumber
        let missing = sequenceNumber - newest - 1
        guard missing > 0 else { return .inOrder }
        statistics.packetsMissing += Int(clamping: missing)
        var first = newest + 1
        var overflowed = false
        let limit = max(1, configuration.maxListSize)
        if missing > Int64(limit) {
            // Only the newest numbers of a huge gap are worth asking for.
            statistics.packetsGivenUp += Int(missing) - limit
            first = sequenceNumber - Int64(limit)
            givenUp.append(first - 1)
            overflowed = true
        }
        let adding = Int(sequenceNumber - first)
        if entries.count + adding > limit {
            let excess = entries.count + adding - limit
            for entry in entries.prefix(excess) { givenUp.append(entry.sequenceNumber) }
            entries.removeFirst(excess)
            statistics.packetsGivenUp += excess
            overflowed = true
        }
        for number in first ..< sequenceNumber {
            entries.append(Entry(sequenceNumber: number, missingSince: now, lastSentAt: nil, retries: 0))
        }
        if overflowed {
            statistics.listOverflows += 1
            return .overflow
        }
        return .gap(Int(missing))
    }

    /// Puts `sequenceNumber`, older than the newest packet, on the list: a receiver that
    /// learns only later that a packet is missing (the stream started before the first packet
    /// that arrived) asks for it this way. Does nothing if it is listed or the list is full.
    public mutating func markMissing(_ sequenceNumber: Int64, at now: Timestamp) {
        guard entries.count < configuration.maxListSize else { return }
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].sequenceNumber < sequenceNumber { low = mid + 1 } else { high = mid }
        }
        if low < entries.count, entries[low].sequenceNumber == sequenceNumber { return }
        entries.insert(Entry(sequenceNumber: sequenceNumber, missingSince: now, lastSentAt: nil, retries: 0), at: low)
        statistics.packetsMissing += 1
    }

    /// The numbers to NACK at `now`, oldest first (empty when none is due), each resent no
    /// sooner than `retryInterval` after the last time; numbers given up on the way are in
    /// ``givenUp``. The array is reused by the next call.
    public mutating func poll(at now: Timestamp, retryInterval: TimeDelta) -> [UInt16] {
        givenUp.removeAll(keepingCapacity: true)
        batch.removeAll(keepingCapacity: true)
        let interval = max(retryInterval, configuration.minRetryInterval)
        var kept = 0
        for index in entries.indices {
            var entry = entries[index]
            let expired = entry.retries >= configuration.maxRetries || now - entry.missingSince > configuration.maxAge
            if expired {
                givenUp.append(entry.sequenceNumber)
                continue
            }
            let due = entry.lastSentAt.map { now - $0 >= interval } ?? (now - entry.missingSince >= firstRequestDelay)
            if due {
                entry.lastSentAt = now
                entry.retries += 1
                batch.append(UInt16(truncatingIfNeeded: entry.sequenceNumber))
            }
            entries[kept] = entry
            kept += 1
        }
        if kept < entries.count { entries.removeLast(entries.count - kept) }
        statistics.packetsGivenUp += givenUp.count
        if !batch.isEmpty {
            statistics.nackCount += 1
            statistics.packetsNacked += batch.count
        }
        return batch
    }

    /// When ``poll(at:retryInterval:)`` next has something to do, or nil with nothing pending.
    public func nextWakeup(retryInterval: TimeDelta) -> Timestamp? {
        let interval = max(retryInterval, configuration.minRetryInterval)
        var earliest: Timestamp?
        for entry in entries {
            var time = entry.missingSince + configuration.maxAge + TimeDelta(microseconds: 1)
            if entry.retries < configuration.maxRetries {
                time = min(time, entry.lastSentAt.map { $0 + interval } ?? entry.missingSince + firstRequestDelay)
            }
            if earliest.map({ time < $0 }) ?? true { earliest = time }
        }
        return earliest
    }

    /// Drops every number below `sequenceNumber`: the frames they belonged to are played or
    /// given up, so asking for them again is pointless. They count as given up.
    public mutating func forget(before sequenceNumber: Int64) {
        var count = 0
        while count < entries.count, entries[count].sequenceNumber < sequenceNumber { count += 1 }
        guard count > 0 else { return }
        entries.removeFirst(count)
        statistics.packetsGivenUp += count
    }

    /// Forgets the list and the newest number (a new stream); statistics are kept.
    public mutating func reset() {
        statistics.packetsGivenUp += entries.count
        entries.removeAll(keepingCapacity: true)
        givenUp.removeAll(keepingCapacity: true)
        newest = nil
    }

    /// Adds a reordering sample and recomputes the median (64 values: an insertion sort into
    /// reused storage, only when a reordered packet arrives).
    private mutating func noteReordering(_ delay: TimeDelta) {
        guard configuration.waitsForReordering else { return }
        reorderDelays[reorderNext] = max(0, delay.microseconds)
        reorderNext = (reorderNext + 1) % Self.reorderSamples
        reorderCount = min(reorderCount + 1, Self.reorderSamples)
        for i in 0 ..< reorderCount {
            let value = reorderDelays[i]
            var j = i
            while j > 0, sortedScratch[j - 1] > value {
                sortedScratch[j] = sortedScratch[j - 1]
                j -= 1
            }
            sortedScratch[j] = value
        }
        let median = TimeDelta(microseconds: sortedScratch[(reorderCount - 1) / 2])
        firstRequestDelay = max(configuration.initialDelay, median)
    }

    private func index(of sequenceNumber: Int64) -> Int? {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].sequenceNumber < sequenceNumber { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].sequenceNumber == sequenceNumber ? low : nil
    }
}
