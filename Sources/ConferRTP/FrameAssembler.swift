public import ConferMedia

/// Whether sequence number `a` comes after `b`, allowing for 16-bit wrap (RFC 3550 §A.1's
/// half-range rule). Kept private to this helper so frame assembly does not depend on the
/// full 64-bit unwrapper.
@inline(__always)
func isNewer(_ a: UInt16, _ b: UInt16) -> Bool {
    a != b && a &- b < 0x8000
}

/// Reassembles whole frames from the RTP payloads of one SSRC, in order or slightly
/// reordered, with a codec's ``Depacketizer``.
///
/// A frame is complete when every sequence number from a frame head to a partition tail
/// (marker bit, VP9 E bit) is present with one RTP timestamp. Frames come out in sequence
/// order: a complete frame waits behind a missing packet until `reorderWindow` newer
/// packets have arrived, then the frames before it are given up and counted. It is a plain
/// value with no clock and no I/O (GStreamer's jitter buffer keeps its data structure
/// apart from the element that drives it): call ``insert(sequenceNumber:timestamp:marker:payload:)``
/// for each packet, then ``nextFrame()`` until it returns nil. A jitter buffer that waits
/// in time rather than packets can call ``skipMissing()``.
///
/// Memory is bounded: at most `capacity` packets are buffered; a packet further ahead
/// forces the oldest frames out, counted in ``stats``. Payload buffers and the emitted
/// frame's storage are reused, so in steady state assembly allocates nothing, provided
/// the caller lets go of each frame before asking for the next.
public struct FrameAssembler<D: Depacketizer> {
    /// One buffered packet; storage is reused across packets.
    private struct Slot {
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

    /// The most packets buffered at once (a power of two).
    public let capacity: Int
    /// How many newer packets may arrive after a gap before the packet missing there is
    /// taken as lost.
    public let reorderWindow: Int
    /// What happened so far.
    public private(set) var stats = FrameAssemblerStats()

    private var depacketizer: D
    private var slots: [Slot]
    private let mask: Int
    /// The next sequence number to assemble from; everything before it is done.
    private var base: UInt16 = 0
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
    private var pendingCount = 0
    /// The frame handed out last; its buffers are reused for the next.
    private var frame: EncodedFrame
    private var lastRTPTimestamp: UInt32 = 0
    private var extendedTimestamp: Int64 = 0
    private var firstExtendedTimestamp: Int64?
    /// The RTP timestamp of the last frame given up, so its later packets do not count again.
    private var lastDiscardedTimestamp: UInt32?

    /// An assembler for `depacketizer`'s codec buffering up to `capacity` packets (rounded
    /// up to a power of two, 16…32768) and waiting out reordering of `reorderWindow` packets.
    public init(depacketizer: D, capacity: Int = 512, reorderWindow: Int = 16) {
        var size = 16
        while size < min(capacity, 32_768) { size <<= 1 }
        self.capacity = size
        self.mask = size - 1
        self.reorderWindow = max(1, min(reorderWindow, size - 1))
        self.depacketizer = depacketizer
        self.slots = Array(repeating: Slot(), count: size)
        self.frame = EncodedFrame(codec: D.codec)
    }

    /// How many packets are buffered.
    public var bufferedPacketCount: Int { pendingCount }

    /// Buffers one packet's payload. An empty payload is taken as RTP padding: it fills its
    /// sequence number and belongs to no frame.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                                payload: UnsafeRawBufferPointer) -> FrameAssemblerInsertion {
        var boundaries = PayloadBoundaries(isPartitionHead: false, isFrameHead: false, isPartitionTail: false)
        if !payload.isEmpty {
            do {
                boundaries = try depacketizer.boundaries(of: payload, marker: marker)
            } catch {
                stats.packetsMalformed += 1
                return .malformed(error)
            }
        }
        if !isStarted {
            isStarted = true
            base = sequenceNumber
            newest = sequenceNumber
        } else if isNewer(base, sequenceNumber) {
            guard !isBaseFixed, distance(sequenceNumber, newest) < capacity else {
                stats.packetsLate += 1
                return .late
            }
            base = sequenceNumber   // still finding the stream's start: take the earlier packet
            scannedThrough = nil
        } else if distance(base, sequenceNumber) >= capacity {
            if pendingCount == 0 || distance(newest, sequenceNumber) >= capacity {
                // A jump past everything buffered: start again there.
                if pendingCount > 0 { discard(through: newest) } else { stats.framesIncomplete += 1 }
                base = sequenceNumber
                baseIsBoundary = false
                isBaseFixed = true
            } else {
                while distance(base, sequenceNumber) >= capacity { giveUp() }
            }
        }
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
        slots[index].payload.append(contentsOf: payload)
        pendingCount += 1
        stats.packetsBuffered += 1
        return .buffered
    }

    /// Buffers one packet's payload from an array.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                                payload: [UInt8]) -> FrameAssemblerInsertion {
        payload.withUnsafeBytes { insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: $0) }
    }

    /// The next complete frame in sequence order, or nil until more packets arrive.
    ///
    /// Its `timestamp` is the RTP timestamp relative to the first emitted frame's, at the
    /// codec's clock rate. Width and height carry over from the last frame that told them.
    public mutating func nextFrame() -> EncodedFrame? {
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
                if let frame = assemble(through: last) { return frame }
            }
        }
        return nil
    }

    /// Stops waiting for the oldest missing packet: the frames before the next frame start
    /// are given up now. For a jitter buffer that decides by time.
    public mutating func skipMissing() {
        if isStarted && pendingCount > 0 { giveUp() }
    }

    /// Drops everything buffered (counted as discarded) and starts again with the next packet.
    public mutating func reset() {
        if pendingCount > 0 { discard(through: newest) }
        isStarted = false
        isBaseFixed = false
        baseIsBoundary = false
        scannedThrough = nil
        firstExtendedTimestamp = nil
    }

    // MARK: - Deciding

    private func distance(_ from: UInt16, _ to: UInt16) -> Int { Int(to &- from) }

    private func isPresent(_ sequenceNumber: UInt16) -> Bool {
        let slot = slots[Int(sequenceNumber) & mask]
        return slot.isOccupied && slot.sequenceNumber == sequenceNumber
    }

    private func slot(_ sequenceNumber: UInt16) -> Slot { slots[Int(sequenceNumber) & mask] }

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

    /// Depacketizes the packets from `base` through `last` into the reused frame.
    private mutating func assemble(through last: UInt16) -> EncodedFrame? {
        // Take the frame and depacketizer out of `self` so they are uniquely referenced
        // (no copy-on-write) while the slots are read.
        var output = frame
        frame = EncodedFrame(codec: D.codec)
        var reader = depacketizer
        output.codec = D.codec
        output.data.removeAll(keepingCapacity: true)
        output.duration = .zero
        reader.beginFrame(&output)
        var failed = false
        var sequenceNumber = base
        let rtpTimestamp = slot(base).timestamp
        for _ in 0...distance(base, last) {
            slots[Int(sequenceNumber) & mask].payload.withUnsafeBytes { payload in
                do throws(PayloadError) {
                    if !failed { try reader.append(payload, to: &output) }
                } catch {
                    failed = true
                }
            }
            release(sequenceNumber)
            sequenceNumber &+= 1
        }
        do throws(PayloadError) { try reader.endFrame(&output) } catch { failed = true }
        depacketizer = reader
        advanceBase(to: sequenceNumber, boundary: true)
        if failed {
            frame = output
            stats.framesMalformed += 1
            return nil
        }
        lastDiscardedTimestamp = nil
        output.timestamp = mediaTimestamp(rtpTimestamp)
        frame = output
        stats.framesEmitted += 1
        return output
    }

    /// `rtpTimestamp` unwrapped and made relative to the first emitted frame's.
    private mutating func mediaTimestamp(_ rtpTimestamp: UInt32) -> Timestamp {
        if let first = firstExtendedTimestamp {
            extendedTimestamp += Int64(Int32(bitPattern: rtpTimestamp &- lastRTPTimestamp))
            lastRTPTimestamp = rtpTimestamp
            return Timestamp.fromTicks(extendedTimestamp - first, rate: D.codec.rtpClockRate)
        }
        lastRTPTimestamp = rtpTimestamp
        extendedTimestamp = Int64(rtpTimestamp)
        firstExtendedTimestamp = extendedTimestamp
        return .zero
    }
}

extension FrameAssembler: Sendable where D: Sendable {}
