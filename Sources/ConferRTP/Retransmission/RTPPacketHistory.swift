public import ConferMedia

/// The sender's memory of the packets it sent, so it can answer a NACK with RTX packets
/// (RFC 4588) on the retransmission stream's own SSRC, payload type and sequence numbers.
///
/// A ring of `capacity` slots indexed by sequence number: storing a packet overwrites the
/// one `capacity` numbers before it, and a packet older than `maxAge` is not resent, so
/// memory is bounded by `capacity × maxPacketSize` whatever the bitrate. Each stored packet
/// is resent at most once per RTT: a NACK repeated before the last retransmission could
/// have arrived is throttled (libwebrtc's `RtpPacketHistory` rule; the first resend is never
/// throttled). Every slot's storage is allocated up front at the largest size (about
/// `capacity × maxPacketSize` bytes, 1.2 MB by default), so storing and resending allocate
/// nothing from the first packet on.
///
/// Keyframe requests are not its business: on a PLI or FIR for its stream the send pipeline
/// calls the encoder's `requestKeyframe()` (``AnyVideoEncoder``) so the next frame is a keyframe.
public struct RTPPacketHistory: Sendable {
    /// Sizes and limits.
    public struct Configuration: Sendable, Hashable {
        /// Packets remembered (rounded up to a power of two, 16…32768). 1024 is about a
        /// second of 8 Mbit/s video.
        public var capacity: Int
        /// Packets sent longer ago than this are not resent: the receiver has given up on them.
        public var maxAge: TimeDelta
        /// Packets larger than this (header included) are not stored.
        public var maxPacketSize: Int

        /// Limits with the given values.
        public init(capacity: Int = 1024, maxAge: TimeDelta = .seconds(1), maxPacketSize: Int = 1500) {
            self.capacity = capacity
            self.maxAge = maxAge
            self.maxPacketSize = maxPacketSize
        }
    }

    /// What the history did so far.
    public struct Statistics: Sendable, Hashable, Codable {
        /// Packets stored.
        public var packetsStored = 0
        /// Packets not stored because they were larger than ``Configuration/maxPacketSize``.
        public var packetsTooLarge = 0
        /// RTX packets written.
        public var retransmissionsSent = 0
        /// Bytes of RTX packets written.
        public var retransmittedBytesSent = 0
        /// Requests refused because the packet was resent less than an RTT ago.
        public var requestsThrottled = 0
        /// Requests for packets no longer (or never) in the history, or older than ``Configuration/maxAge``.
        public var requestsUnavailable = 0
        /// Requests refused because the retransmission budget was spent (``RetransmissionRateLimiter``).
        public var requestsOverBudget = 0

        /// All counters at zero.
        public init() {}
    }

    private struct Slot {
        var isOccupied = false
        var sequenceNumber: UInt16 = 0
        var sentAt = Timestamp.zero
        var lastResentAt: Timestamp?
        var bytes: [UInt8] = []
    }

    /// The limits in force (capacity rounded up to a power of two).
    public let configuration: Configuration
    /// The SSRC of the retransmission stream.
    public var rtxSSRC: UInt32
    /// The RTX payload type (associated with the media payload type in SDP by `apt`).
    public var rtxPayloadType: UInt8
    /// The sequence number the next RTX packet gets.
    public var nextRTXSequenceNumber: UInt16
    /// What happened so far.
    public private(set) var statistics = Statistics()

    private var slots: [Slot]
    private let mask: Int
    /// Where RTX packets are written before being handed to the caller.
    private var scratch: [UInt8]

    /// A history for one media stream whose retransmissions go out on `rtxSSRC` with `rtxPayloadType`.
    public init(configuration: Configuration = Configuration(), rtxSSRC: UInt32, rtxPayloadType: UInt8,
                firstRTXSequenceNumber: UInt16 = 0) {
        var size = 16
        while size < min(configuration.capacity, 32_768) { size <<= 1 }
        var configuration = configuration
        configuration.capacity = size
        configuration.maxPacketSize = max(RTPHeader.fixedSize, configuration.maxPacketSize)
        self.configuration = configuration
        self.rtxSSRC = rtxSSRC
        self.rtxPayloadType = rtxPayloadType
        nextRTXSequenceNumber = firstRTXSequenceNumber
        // One allocation per slot, each its own buffer (repeating one Slot would share one
        // array, and every first store would then copy it): otherwise a slot reallocates
        // whenever it first holds a larger packet, and a sender at a few packets per frame
        // would allocate on most frames for its first thousands of packets.
        let slotSize = configuration.maxPacketSize
        slots = (0 ..< size).map { _ in
            var slot = Slot()
            slot.bytes.reserveCapacity(slotSize)
            return slot
        }
        mask = size - 1
        scratch = [UInt8](repeating: 0, count: configuration.maxPacketSize + RTXPacket.originalSequenceNumberSize)
    }

    /// How many packets are stored.
    public var storedPacketCount: Int { slots.reduce(0) { $0 + ($1.isOccupied ? 1 : 0) } }

    /// Remembers `packet`, sent at `sentAt`, replacing the packet stored `capacity` numbers before it.
    public mutating func store(_ packet: RTPPacketView, sentAt: Timestamp) {
        let bytes = packet.bytes
        guard bytes.count <= configuration.maxPacketSize else {
            statistics.packetsTooLarge += 1
            return
        }
        let index = Int(packet.sequenceNumber) & mask
        slots[index].isOccupied = true
        slots[index].sequenceNumber = packet.sequenceNumber
        slots[index].sentAt = sentAt
        slots[index].lastResentAt = nil
        slots[index].bytes.removeAll(keepingCapacity: true)
        slots[index].bytes.append(contentsOf: bytes)
        statistics.packetsStored += 1
    }

    /// Remembers the packet in `bytes`.
    ///
    /// - Throws: the ``RTPError`` parsing found.
    public mutating func store(_ bytes: [UInt8], sentAt: Timestamp) throws(RTPError) {
        let result: Result<Void, RTPError> = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) in store(try RTPPacketView(raw), sentAt: sentAt) }
        }
        try result.get()
    }

    /// Writes an RTX packet for each of `sequenceNumbers` that is stored, not older than
    /// ``Configuration/maxAge``, not resent within the last `rtt` and within `budget` bytes
    /// (all the packets emitted together), handing each to `emit`. A packet refused for the
    /// budget is not marked resent, so a later NACK can still have it.
    ///
    /// The buffer passed to `emit` is valid only during that call and reused for the next
    /// packet, so answering a NACK allocates nothing.
    ///
    /// - Returns: how many RTX packets were emitted.
    @discardableResult
    public mutating func retransmit<Numbers: Sequence<UInt16>>(
        _ sequenceNumbers: Numbers, now: Timestamp, rtt: TimeDelta, budget: Int = .max,
        _ emit: (UnsafeRawBufferPointer) -> Void
    ) -> Int {
        var emitted = 0
        var remaining = budget
        for sequenceNumber in sequenceNumbers {
            let index = Int(sequenceNumber) & mask
            guard slots[index].isOccupied, slots[index].sequenceNumber == sequenceNumber,
                  now - slots[index].sentAt <= configuration.maxAge else {
                statistics.requestsUnavailable += 1
                continue
            }
            if let last = slots[index].lastResentAt, now - last < rtt {
                statistics.requestsThrottled += 1
                continue
            }
            let written = writeRetransmission(ofSlot: index)
            guard written > 0 else {
                statistics.requestsUnavailable += 1
                continue
            }
            guard written <= remaining else {
                statistics.requestsOverBudget += 1
                continue
            }
            remaining -= written
            slots[index].lastResentAt = now
            nextRTXSequenceNumber &+= 1
            statistics.retransmissionsSent += 1
            statistics.retransmittedBytesSent += written
            emitted += 1
            scratch.withUnsafeBytes { emit(UnsafeRawBufferPointer(rebasing: $0[0 ..< written])) }
        }
        return emitted
    }

    /// The RTX packets answering `nack`, each in a new array (off the per-packet path).
    public mutating func retransmissions(answering nack: RTCPGenericNACK, now: Timestamp, rtt: TimeDelta) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        retransmit(nack.lostSequenceNumbers, now: now, rtt: rtt) { packets.append(Array($0)) }
        return packets
    }

    /// Forgets every packet (after a sender restart).
    public mutating func removeAll() {
        for index in slots.indices {
            slots[index].isOccupied = false
            slots[index].bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Writes the RTX packet for the stored packet in slot `index` into `scratch`; 0 if it does not parse.
    private mutating func writeRetransmission(ofSlot index: Int) -> Int {
        let ssrc = rtxSSRC, payloadType = rtxPayloadType, sequenceNumber = nextRTXSequenceNumber
        // Take the scratch buffer out so the slot's bytes and it are not both borrowed from `self`.
        var output = scratch
        scratch = []
        defer { scratch = output }
        return slots[index].bytes.withUnsafeBytes { stored -> Int in
            output.withUnsafeMutableBytes { buffer -> Int in
                do throws(RTXError) {
                    guard let original = try? RTPPacketView(stored) else { return 0 }
                    return try RTXPacket.write(retransmissionOf: original, ssrc: ssrc, payloadType: payloadType,
                                               sequenceNumber: sequenceNumber, into: buffer)
                } catch {
                    return 0
                }
            }
        }
    }
}
