public import ConferMedia
public import ConferRTP

/// The sender's record of the packets it sent with a transport-wide sequence number, so
/// transport-cc feedback (which names packets only by number) can be turned into
/// ``PacketFeedback``: send time, receive time and size for each packet that arrived, and
/// counts of those that did not.
///
/// A bounded ring indexed by the unwrapped sequence number: recording never allocates,
/// and a packet is forgotten once `capacity` newer ones have been sent (at 1200-byte
/// packets the default 4096 slots cover about 1.3 s at 30 Mbit/s, far beyond any
/// feedback interval). Lost packets stay in the ring, because a later feedback may still
/// report them received; received ones are marked so a repeated report is not counted
/// twice.
///
/// Receive times arrive as a 24-bit reference time (64 ms units, wrapping every ~12 days)
/// plus deltas. The history maps the first reference onto the local time the feedback
/// arrived and follows later references by their wrap-aware difference, so receive
/// times live on one continuous timeline whose differences are the receiver's.
public struct SentPacketHistory: Sendable {
    private struct Slot {
        static let empty = Slot(sequenceNumber: .min, sendTime: 0, size: 0, probeCluster: -1, state: .pending)
        enum State: UInt8 { case pending, lost, received }

        var sequenceNumber: Int64
        var sendTime: Int64
        var size: Int32
        var probeCluster: Int32
        var state: State
    }

    private var slots: [Slot]
    private let mask: Int
    private var unwrapper = SequenceUnwrapper()
    private var lastRaw: UInt16 = 0
    private var lastUnwrapped: Int64?
    /// Consecutive numbers recorded since `unwrapper` last saw one (see `unwrap`).
    private var unsyncedSteps = 0
    private var lastReferenceTicks: Int32?
    private var mappedReference = Timestamp.zero

    /// Packets recorded so far.
    public private(set) var packetsRecorded: Int64 = 0

    /// A history remembering the last `capacity` packets (rounded up to a power of two,
    /// at least 16).
    public init(capacity: Int = 4096) {
        var size = 16
        while size < capacity, size < 1 << 20 { size <<= 1 }
        slots = [Slot](repeating: .empty, count: size)
        mask = size - 1
    }

    var slotsFingerprint: [Int] { fingerprint(slots) }

    /// How many packets the ring remembers.
    public var capacity: Int { slots.count }

    /// The highest sequence number recorded, unwrapped, or nil before the first packet.
    public var lastSequenceNumber: Int64? { lastUnwrapped }

    /// Records a packet of `size` bytes carrying transport-wide `sequenceNumber`, sent at
    /// `sendTime` (as part of probe cluster `probeClusterID`, if any), and returns its
    /// unwrapped sequence number.
    @discardableResult
    public mutating func record(sequenceNumber: UInt16, size: Int, sendTime: Timestamp, probeClusterID: Int? = nil) -> Int64 {
        let sequence = unwrap(sequenceNumber)
        slots[Int(truncatingIfNeeded: sequence) & mask] = Slot(
            sequenceNumber: sequence, sendTime: sendTime.microseconds, size: Int32(clamping: max(size, 0)),
            probeCluster: probeClusterID.map { Int32(clamping: $0) } ?? -1, state: .pending)
        packetsRecorded += 1
        return sequence
    }

    /// Resolves `feedback`, which arrived at `now`: appends a ``PacketFeedback`` to
    /// `results` for each packet reported received that had not been before (in the
    /// feedback's sequence order) and returns the counts. Never allocates beyond growing
    /// `results`.
    public mutating func resolve(
        _ feedback: RTCPTransportFeedback, at now: Timestamp, into results: inout [PacketFeedback]
    ) -> TransportFeedbackCounts {
        var counts = TransportFeedbackCounts()
        var time = mapReference(feedback.referenceTime, at: now)
        syncUnwrapper()
        guard let newest = lastUnwrapped else {
            counts.unknown = feedback.packetStatusCount
            return counts
        }
        // The feedback describes packets already sent, so the last sent number is the
        // right reference for placing its base (without moving the sender's unwrapper).
        let base = unwrapper.peekUnwrap(feedback.baseSequenceNumber)
        var next = 0
        for offset in 0 ..< feedback.packetStatusCount {
            let sequence = base + Int64(offset)
            var arrived = false
            if next < feedback.receivedPackets.count,
               feedback.receivedPackets[next].sequenceNumber == feedback.baseSequenceNumber &+ UInt16(truncatingIfNeeded: offset) {
                time += feedback.receivedPackets[next].delta
                next += 1
                arrived = true
            }
            let index = Int(truncatingIfNeeded: sequence) & mask
            guard sequence <= newest, slots[index].sequenceNumber == sequence, slots[index].state != .received else {
                counts.unknown += 1
                continue
            }
            if arrived {
                if slots[index].state == .pending { counts.received += 1 } else { counts.recovered += 1 }
                slots[index].state = .received
                let slot = slots[index]
                results.append(PacketFeedback(
                    sequenceNumber: sequence, sendTime: Timestamp(microseconds: slot.sendTime), receiveTime: time,
                    size: Int(slot.size), probeClusterID: slot.probeCluster >= 0 ? Int(slot.probeCluster) : nil))
            } else if slots[index].state == .pending {
                slots[index].state = .lost
                counts.lost += 1
            }
        }
        return counts
    }

    /// `sequenceNumber` unwrapped. ConferRTP's `SequenceUnwrapper` is generic and not
    /// inlinable, so each call crosses the module unspecialized (~40 ns); a sender's
    /// numbers are almost always consecutive, and for those the answer is simply one more.
    /// The unwrapper is told about the latest number before it is asked anything else,
    /// and at least every 16384 packets, so its reference never falls half a cycle behind.
    private mutating func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        if let last = lastUnwrapped, sequenceNumber == lastRaw &+ 1, unsyncedSteps < 16_384 {
            unsyncedSteps += 1
            lastRaw = sequenceNumber
            lastUnwrapped = last + 1
            return last + 1
        }
        syncUnwrapper()
        let sequence = unwrapper.unwrap(sequenceNumber)
        lastRaw = sequenceNumber
        lastUnwrapped = sequence
        return sequence
    }

    /// Brings the unwrapper's reference up to the last recorded number.
    private mutating func syncUnwrapper() {
        guard unsyncedSteps > 0 else { return }
        _ = unwrapper.unwrap(lastRaw)
        unsyncedSteps = 0
    }

    /// The feedback's reference time on the continuous receive timeline.
    private mutating func mapReference(_ ticks: Int32, at now: Timestamp) -> Timestamp {
        if let last = lastReferenceTicks {
            // The field is 24-bit signed and wraps: take the difference modulo 2^24.
            let delta = ((ticks &- last) << 8) >> 8
            mappedReference += RTCPTransportFeedback.referenceTimeTick * Int64(delta)
        } else {
            mappedReference = now
        }
        lastReferenceTicks = ticks
        return mappedReference
    }
}
