/// Whether sequence number `a` comes after `b`, allowing for 16-bit wrap (RFC 3550 §A.1's
/// half-range rule). A small private helper so frame assembly does not depend on the full
/// 64-bit unwrapper.
@inline(__always)
func isNewer(_ a: UInt16, _ b: UInt16) -> Bool {
    a != b && a &- b < 0x8000
}

/// The packet ring and the decisions of ``FrameAssembler``: which sequence numbers form
/// the next frame, when to wait for reordered packets and when to give up on lost ones.
///
/// It knows packets only by sequence number, timestamp and ``PayloadBoundaries``, so it is
/// not generic over the codec: non-generic code is compiled once, specialized, and per
/// packet that is several times faster than unspecialized generic code across modules.
struct FrameAssemblyBuffer {
    /// One buffered packet; storage is reused across packets.
    struct Slot {
        var isOccupied = false
        var sequenceNumber: UInt16 = 0
        var timestamp: UInt32 = 0
        /// An empty payload (RTP padding): it takes a sequence number but belongs to no frame.
        var isPadding = false
        var boundaries = PayloadBoundaries(isPartitionHead: false, isFrameHead: false, isPartitionTail: false)
        var payload: [UInt8] = []
    }

    /// What to do about the packets at `base`.
    private enum Step {
        case emit(through: UInt16)
        case wait
        case skipPadding
        case giveUp
    }

    let capacity: Int
    let reorderWindow: Int
    var stats = FrameAssemblerStats()

    private var slots: [Slot]
    private let mask: Int
    /// The next sequence number to assemble from; everything before it is done.
    private(set) var base: UInt16 = 0
    /// The newest sequence number buffered.
    private var newest: UInt16 = 0
    private var isStarted = false
    /// Once a frame is emitted or given up, `base` never moves back for a late packet.
    private var isBaseFixed = false
    /// Whether the packet before `base` is known to end a frame, so an H.264 NAL unit
    /// start at `base` is an access unit start.
    private var baseIsBoundary = false
    /// Packets from `base` through this one are present, of one frame, and not its tail.
    private var scannedThrough: UInt16?
    private(set) var pendingCount = 0
    /// The RTP timestamp of the last frame given up, so its later packets do not count again.
    private var lastDiscardedTimestamp: UInt32?
    /// Packets in a row that came from more than `capacity` behind `base`.
    private var farBehindCount = 0
    /// After this many packets in a row from far behind, the sender is taken to have restarted.
    static let restartAfter = 4

    init(capacity: Int, reorderWindow: Int) {
        var size = 16
        while size < min(capacity, 32_768) { size <<= 1 }
        self.capacity = size
        self.mask = size - 1
        self.reorderWindow = max(1, min(reorderWindow, size - 1))
        self.slots = Array(repeating: Slot(), count: size)
    }

    /// Buffers a packet whose payload has been checked.
    mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, boundaries: PayloadBoundaries,
                         payload: UnsafeRawBufferPointer) -> FrameAssemblerInsertion {
        if !isStarted {
            isStarted = true
            base = sequenceNumber
            newest = sequenceNumber
        } else if isNewer(base, sequenceNumber) {
            if !isBaseFixed && distance(sequenceNumber, newest) < capacity {
                base = sequenceNumber   // still finding the stream's start: take the earlier packet
                scannedThrough = nil
            } else if distance(sequenceNumber, base) > capacity && farBehindCount + 1 >= Self.restartAfter {
                // Several packets in a row from far behind: not reordering but a sender
                // that restarted its sequence numbers (a jump of half the range or more
                // looks like the past). Start again there.
                restart(at: sequenceNumber)
            } else {
                if distance(sequenceNumber, base) > capacity { farBehindCount += 1 }
                stats.packetsLate += 1
                return .late
            }
        } else if distance(base, sequenceNumber) >= capacity {
            if pendingCount == 0 || distance(newest, sequenceNumber) >= capacity {
                restart(at: sequenceNumber)   // a jump past everything buffered
            } else {
                while distance(base, sequenceNumber) >= capacity { giveUp() }
            }
        }
        farBehindCount = 0
        if isNewer(sequenceNumber, newest) { newest = sequenceNumber }
        let index = Int(sequenceNumber) & mask
        if slots[index].isOccupied {
            // Every buffered packet is within `capacity` of `base`, so this is the same number.
            stats.packetsDuplicate += 1
            return .duplicate
        }
        slots[index].isOccupied = true
        slots[index].sequenceNumber = sequenceNumber
        slots[index].timestamp = timestamp
        slots[index].isPadding = payload.isEmpty
        slots[index].boundaries = boundaries
        slots[index].payload.removeAll(keepingCapacity: true)
        slots[index].payload.appendBytes(payload)
        pendingCount += 1
        stats.packetsBuffered += 1
        return .buffered
    }

    /// Drops everything buffered and takes `sequenceNumber` as the new start of the stream.
    private mutating func restart(at sequenceNumber: UInt16) {
        if pendingCount > 0 { discard(through: newest) } else { stats.framesIncomplete += 1 }
        base = sequenceNumber
        newest = sequenceNumber
        baseIsBoundary = false
        isBaseFixed = true
        scannedThrough = nil
    }

    /// The sequence numbers of the next frame ready to depacketize, or nil until more
    /// packets arrive. Gives up on lost packets and skips padding on the way.
    mutating func nextRun() -> (first: UInt16, last: UInt16)? {
        while isStarted && pendingCount > 0 {
            switch step() {
            case .wait:
                return nil
            case .skipPadding:
                release(base)
                advanceBase(to: base &+ 1, boundary: baseIsBoundary)
            case .giveUp:
                giveUp()
            case .emit(let last):
                return (base, last)
            }
        }
        return nil
    }

    /// The RTP timestamp of the buffered packet `sequenceNumber`.
    func timestamp(of sequenceNumber: UInt16) -> UInt32 { slots[Int(sequenceNumber) & mask].timestamp }

    /// Calls `body` with the payload of the buffered packet `sequenceNumber`.
    func withPayload<R>(of sequenceNumber: UInt16, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        slots[Int(sequenceNumber) & mask].payload.withUnsafeBytes(body)
    }

    /// Releases the run `nextRun` returned, once depacketized (or found malformed).
    mutating func finishRun(through last: UInt16) {
        var sequenceNumber = base
        for _ in 0...distance(base, last) {
            release(sequenceNumber)
            sequenceNumber &+= 1
        }
        lastDiscardedTimestamp = nil
        advanceBase(to: sequenceNumber, boundary: true)
    }

    /// Stops waiting for the oldest missing packet.
    mutating func skipMissing() {
        if isStarted && pendingCount > 0 { giveUp() }
    }

    /// Drops everything buffered and starts again with the next packet.
    mutating func reset() {
        if pendingCount > 0 { discard(through: newest) }
        isStarted = false
        isBaseFixed = false
        baseIsBoundary = false
        scannedThrough = nil
        lastDiscardedTimestamp = nil
    }

    // MARK: - Deciding

    private func distance(_ from: UInt16, _ to: UInt16) -> Int { Int(to &- from) }

    private func isPresent(_ sequenceNumber: UInt16) -> Bool {
        let index = Int(sequenceNumber) & mask
        return slots[index].isOccupied && slots[index].sequenceNumber == sequenceNumber
    }

    /// The packet's facts other than its payload, read without copying (and retaining) the payload.
    private func slot(_ sequenceNumber: UInt16) -> (timestamp: UInt32, isPadding: Bool, boundaries: PayloadBoundaries) {
        let index = Int(sequenceNumber) & mask
        return (slots[index].timestamp, slots[index].isPadding, slots[index].boundaries)
    }

    /// Whether enough newer packets arrived after the missing `sequenceNumber` to call it lost.
    private func isLost(_ sequenceNumber: UInt16) -> Bool {
        isNewer(newest, sequenceNumber) && distance(sequenceNumber, newest) >= reorderWindow
    }

    private mutating func step() -> Step {
        guard isPresent(base) else { return isLost(base) ? .giveUp : .wait }
        let head = slot(base)
        if head.isPadding { return .skipPadding }
        let startsFrame = head.boundaries.isFrameHead || (head.boundaries.isPartitionHead && baseIsBoundary)
        guard startsFrame else {
            // Not a frame start: the middle of a frame whose start was lost, or, while the
            // stream's first packets may still be arriving, whose start may yet come.
            return isBaseFixed || isLost(base) ? .giveUp : .wait
        }
        var sequenceNumber = scannedThrough ?? base
        while true {
            let current = slot(sequenceNumber)
            if current.boundaries.isPartitionTail { return .emit(through: sequenceNumber) }
            let next = sequenceNumber &+ 1
            if isNewer(next, newest) { return .wait }   // nothing after it yet
            guard isPresent(next) else { return isLost(next) ? .giveUp : .wait }
            let following = slot(next)
            // Packets are contiguous here, so a new timestamp or padding ends a frame whose
            // sender left the marker off.
            if following.isPadding || following.timestamp != head.timestamp { return .emit(through: sequenceNumber) }
            sequenceNumber = next
            scannedThrough = sequenceNumber
        }
    }

    // MARK: - Acting

    private mutating func advanceBase(to sequenceNumber: UInt16, boundary: Bool) {
        base = sequenceNumber
        baseIsBoundary = boundary
        isBaseFixed = true
        scannedThrough = nil
    }

    private mutating func release(_ sequenceNumber: UInt16) {
        let index = Int(sequenceNumber) & mask
        guard slots[index].isOccupied, slots[index].sequenceNumber == sequenceNumber else { return }
        slots[index].isOccupied = false
        slots[index].payload.removeAll(keepingCapacity: true)
        pendingCount -= 1
    }

    /// Gives up on the packets from `base` up to the next certain frame start, or up to
    /// the newest packet when there is none.
    private mutating func giveUp() {
        var candidate = base &+ 1
        var found: UInt16?
        while !isNewer(candidate, newest) {
            if isPresent(candidate), startsFrameAfterGap(candidate) {
                found = candidate
                break
            }
            candidate &+= 1
        }
        let end = found ?? newest &+ 1
        discard(through: end &- 1)
        advanceBase(to: end, boundary: found != nil)
    }

    /// Whether the packet at `sequenceNumber` begins a frame, judging by itself and the packet before it.
    private func startsFrameAfterGap(_ sequenceNumber: UInt16) -> Bool {
        let current = slot(sequenceNumber)
        if current.isPadding { return false }
        if current.boundaries.isFrameHead { return true }
        guard current.boundaries.isPartitionHead, isPresent(sequenceNumber &- 1) else { return false }
        let previous = slot(sequenceNumber &- 1)
        return previous.isPadding || previous.boundaries.isPartitionTail || previous.timestamp != current.timestamp
    }

    /// Throws away the packets from `base` through `last`, counting the frames lost.
    private mutating func discard(through last: UInt16) {
        guard !isNewer(base, last) else { return }
        var sequenceNumber = base
        var frames = 0
        var discardedAny = false
        let count = distance(base, last) + 1
        for _ in 0..<count {
            if isPresent(sequenceNumber) {
                let current = slot(sequenceNumber)
                if !current.isPadding {
                    // A frame given up in parts (its start, later its rest) counts once.
                    if current.timestamp != lastDiscardedTimestamp { frames += 1 }
                    lastDiscardedTimestamp = current.timestamp
                    stats.packetsDiscarded += 1
                    discardedAny = true
                }
                release(sequenceNumber)
            }
            sequenceNumber &+= 1
        }
        // Only missing packets right after a frame's end: at least one frame was lost whole.
        if !discardedAny && baseIsBoundary { frames = 1 }
        stats.framesIncomplete += frames
    }
}
