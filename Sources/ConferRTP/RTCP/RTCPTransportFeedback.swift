public import ConferMedia

// draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1: Transport-wide RTCP Feedback
// Message (RTPFB, FMT 15).

/// Transport-wide congestion control feedback: for a range of transport-wide sequence
/// numbers, which packets arrived and when, so the sender can estimate bandwidth.
///
/// Arrival times are kept as the packet carries them: a reference time in 64 ms units and
/// per-packet deltas of 250 µs ticks, each relative to the previous received packet.
public struct RTCPTransportFeedback: RTCPPacketContent {
    /// The feedback message type within RTPFB.
    public static let format: UInt8 = 15
    /// The unit of receive deltas.
    public static let deltaTick = TimeDelta(microseconds: 250)
    /// The unit of the reference time.
    public static let referenceTimeTick = TimeDelta(microseconds: 64_000)

    /// A packet that arrived, with its receive delta.
    public struct ReceivedPacket: Hashable, Sendable {
        /// Its transport-wide sequence number.
        public var sequenceNumber: UInt16
        /// Arrival minus the previous received packet's arrival (or the reference time), in
        /// 250 µs ticks.
        public var deltaTicks: Int16

        /// A received packet with `sequenceNumber` and `deltaTicks`.
        public init(sequenceNumber: UInt16, deltaTicks: Int16) {
            self.sequenceNumber = sequenceNumber
            self.deltaTicks = deltaTicks
        }

        /// The receive delta as a span of time.
        public var delta: TimeDelta { RTCPTransportFeedback.deltaTick * Int64(deltaTicks) }
    }

    /// One packet's fate: when it arrived on the receiver's clock, or nil if it did not.
    public struct PacketResult: Hashable, Sendable {
        /// Its transport-wide sequence number.
        public var sequenceNumber: UInt16
        /// Its arrival time, or nil when lost.
        public var arrival: Timestamp?

        /// The result for `sequenceNumber`.
        public init(sequenceNumber: UInt16, arrival: Timestamp?) {
            self.sequenceNumber = sequenceNumber
            self.arrival = arrival
        }
    }

    /// The sender of this feedback.
    public var senderSSRC: UInt32
    /// The media source (libwebrtc writes the first media SSRC it saw).
    public var mediaSSRC: UInt32
    /// The first sequence number covered.
    public var baseSequenceNumber: UInt16
    /// How many sequence numbers from the base are covered (0–65535).
    public var packetStatusCount: Int
    /// The 24-bit signed reference time in 64 ms units.
    public var referenceTime: Int32
    /// Counts feedback packets, so the sender can tell when one was lost.
    public var feedbackPacketCount: UInt8
    /// The packets that arrived, in sequence order.
    public var receivedPackets: [ReceivedPacket]

    /// Feedback with every field given.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: Int,
        referenceTime: Int32, feedbackPacketCount: UInt8, receivedPackets: [ReceivedPacket]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.receivedPackets = receivedPackets
    }

    /// Feedback describing `packets`, which run in ascending (wrap-aware) sequence order
    /// starting at the base; numbers skipped between them count as lost, like those with
    /// a nil arrival. Arrivals may go backwards (reordering): such deltas are negative.
    ///
    /// The reference time is the first arrival rounded down to 64 ms; each delta is rounded
    /// to the nearest 250 µs and the rounding carried forward, so errors never accumulate.
    ///
    /// - Throws: ``RTCPError/notRepresentable(_:)`` when `packets` is empty, out of order,
    ///   spans more than 65535 numbers from the first, or needs a delta beyond ±8191.75 ms.
    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, feedbackPacketCount: UInt8, packets: [PacketResult]
    ) throws(RTCPError) {
        guard let base = packets.first?.sequenceNumber else {
            throw .notRepresentable("transport-cc feedback needs at least one packet")
        }
        let referenceTicks = packets.first { $0.arrival != nil }?.arrival.map {
            Self.floorDivide($0.microseconds, Self.referenceTimeTick.microseconds)
        } ?? 0
        var previousTime = referenceTicks * Self.referenceTimeTick.microseconds
        var previousOffset = -1
        var received: [ReceivedPacket] = []
        for packet in packets {
            let offset = Int(packet.sequenceNumber &- base)
            guard offset > previousOffset, offset < 0xFFFF else {
                throw .notRepresentable(
                    "transport-cc sequence number \(packet.sequenceNumber) is out of order or too far from the base")
            }
            previousOffset = offset
            guard let arrival = packet.arrival else { continue }
            let ticks = Self.roundedTicks(arrival.microseconds - previousTime)
            guard let delta = Int16(exactly: ticks) else {
                throw .notRepresentable("transport-cc delta of \(ticks) ticks for \(packet.sequenceNumber)")
            }
            previousTime += ticks * Self.deltaTick.microseconds
            received.append(ReceivedPacket(sequenceNumber: packet.sequenceNumber, deltaTicks: delta))
        }
        // Keep the 24-bit signed field's value (it wraps every 2^24 · 64 ms, about 12 days).
        let wrapped = Int32(truncatingIfNeeded: (referenceTicks << 40) >> 40)
        self.init(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: base,
            packetStatusCount: previousOffset + 1, referenceTime: wrapped,
            feedbackPacketCount: feedbackPacketCount, receivedPackets: received)
    }

    /// The reference time as a timestamp on the receiver's clock (modulo its wrap).
    public var referenceTimestamp: Timestamp { .zero + Self.referenceTimeTick * Int64(referenceTime) }

    /// Every covered sequence number with its arrival time (reference plus accumulated
    /// deltas), or nil when lost.
    public var packetResults: [PacketResult] {
        var results: [PacketResult] = []
        results.reserveCapacity(packetStatusCount)
        var time = referenceTimestamp
        var next = 0
        for offset in 0 ..< packetStatusCount {
            let sequenceNumber = baseSequenceNumber &+ UInt16(truncatingIfNeeded: offset)
            if next < receivedPackets.count, receivedPackets[next].sequenceNumber == sequenceNumber {
                time += receivedPackets[next].delta
                next += 1
                results.append(PacketResult(sequenceNumber: sequenceNumber, arrival: time))
            } else {
                results.append(PacketResult(sequenceNumber: sequenceNumber, arrival: nil))
            }
        }
        return results
    }

    // MARK: Writing

    /// Bytes before padding: header, fixed fields, chunks and deltas.
    private var unpaddedSize: Int {
        var size = 20 + 2 * chunkCount
        for packet in receivedPackets {
            size += Int(TransportFeedbackSymbol.forDelta(packet.deltaTicks))
        }
        return size
    }

    private var chunkCount: Int {
        var count = 0
        forEachChunk { _ in count += 1 }
        return count
    }

    public var serializedSize: Int { (unpaddedSize + 3) & ~3 }

    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        try validate()
        let unpadded = unpaddedSize
        let size = (unpadded + 3) & ~3
        try buffer.putFeedbackHeader(format: Self.format, packetType: RTCPPacketType.transportLayerFeedback, size: size,
                                     padding: size > unpadded, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC)
        buffer.put16(baseSequenceNumber, at: 12)
        buffer.put16(UInt16(packetStatusCount), at: 14)
        buffer.put24(UInt32(bitPattern: referenceTime) & 0xFF_FFFF, at: 16)
        buffer[19] = feedbackPacketCount
        var position = 20
        forEachChunk { chunk in
            buffer.put16(chunk, at: position)
            position += 2
        }
        for packet in receivedPackets {
            if TransportFeedbackSymbol.forDelta(packet.deltaTicks) == TransportFeedbackSymbol.smallDelta {
                buffer[position] = UInt8(packet.deltaTicks)
                position += 1
            } else {
                buffer.put16(UInt16(bitPattern: packet.deltaTicks), at: position)
                position += 2
            }
        }
        // libwebrtc pads with the RTCP P bit: zeros, then the count in the last byte.
        if size > position {
            buffer.zero(position, size - position - 1)
            buffer[size - 1] = UInt8(size - position)
        }
        return size
    }

    private func validate() throws(RTCPError) {
        guard (0 ... 0xFFFF).contains(packetStatusCount) else {
            throw .notRepresentable("transport-cc status count \(packetStatusCount)")
        }
        guard (-0x80_0000 ... 0x7F_FFFF).contains(referenceTime) else {
            throw .notRepresentable("transport-cc reference time \(referenceTime) exceeds 24 bits")
        }
        var previous = -1
        for packet in receivedPackets {
            let offset = Int(packet.sequenceNumber &- baseSequenceNumber)
            guard offset > previous, offset < packetStatusCount else {
                throw .notRepresentable("transport-cc received packet \(packet.sequenceNumber) outside or out of order")
            }
            previous = offset
        }
    }

    /// Calls `body` with every status chunk, in order, without allocating.
    private func forEachChunk(_ body: (UInt16) -> Void) {
        var encoder = TransportFeedbackChunkEncoder()
        var next = 0
        for offset in 0 ..< packetStatusCount {
            var symbol = TransportFeedbackSymbol.notReceived
            if next < receivedPackets.count,
               Int(receivedPackets[next].sequenceNumber &- baseSequenceNumber) == offset {
                symbol = TransportFeedbackSymbol.forDelta(receivedPackets[next].deltaTicks)
                next += 1
            }
            if !encoder.canAdd(symbol) { body(encoder.emit()) }
            encoder.add(symbol)
        }
        if !encoder.isEmpty { body(encoder.last()) }
    }

    // MARK: Reading

    /// - Throws: ``RTCPError/truncatedPacket(packetType:offset:)`` when chunks or deltas
    ///   are missing, ``RTCPError/reservedStatusSymbol(offset:)`` for symbol 3.
    public init(parsing packet: RTCPPacketSlice) throws(RTCPError) {
        let body = packet.body
        try packet.require(16, at: 0)
        senderSSRC = body.u32(0)
        mediaSSRC = body.u32(4)
        let base = body.u16(8)
        let statusCount = Int(body.u16(10))
        baseSequenceNumber = base
        packetStatusCount = statusCount
        referenceTime = Int32(bitPattern: body.u24(12) << 8) >> 8
        feedbackPacketCount = body[15]

        // Statuses first; each received packet holds its symbol until its delta is read.
        var received: [ReceivedPacket] = []
        var index = 0
        var position = 16
        func note(_ symbol: UInt8) {
            if symbol != TransportFeedbackSymbol.notReceived {
                let sequenceNumber = base &+ UInt16(truncatingIfNeeded: index)
                received.append(ReceivedPacket(sequenceNumber: sequenceNumber, deltaTicks: Int16(symbol)))
            }
            index += 1
        }
        while index < statusCount {
            try packet.require(2, at: position)
            let chunk = body.u16(position)
            if chunk & 0x8000 == 0 {
                let symbol = UInt8(chunk >> 13 & 3)
                let run = min(Int(chunk & 0x1FFF), statusCount - index)
                if symbol == TransportFeedbackSymbol.reserved, run > 0 {
                    throw .reservedStatusSymbol(offset: packet.bodyOffset + position)
                }
                for _ in 0 ..< run { note(symbol) }
            } else if chunk & 0x4000 == 0 {
                for bit in 0 ..< 14 where index < statusCount {
                    note(UInt8(chunk >> (13 - bit) & 1))
                }
            } else {
                for slot in 0 ..< 7 where index < statusCount {
                    let symbol = UInt8(chunk >> (2 * (6 - slot)) & 3)
                    if symbol == TransportFeedbackSymbol.reserved {
                        throw .reservedStatusSymbol(offset: packet.bodyOffset + position)
                    }
                    note(symbol)
                }
            }
            position += 2
        }
        for slot in received.indices {
            if UInt8(received[slot].deltaTicks) == TransportFeedbackSymbol.smallDelta {
                try packet.require(1, at: position)
                received[slot].deltaTicks = Int16(body[position])
                position += 1
            } else {
                try packet.require(2, at: position)
                received[slot].deltaTicks = Int16(bitPattern: body.u16(position))
                position += 2
            }
        }
        receivedPackets = received
    }

    // MARK: Arithmetic

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// `microseconds` in 250 µs ticks, rounded to nearest with halves away from zero.
    private static func roundedTicks(_ microseconds: Int64) -> Int64 {
        let tick = deltaTick.microseconds
        return microseconds >= 0 ? (microseconds + tick / 2) / tick : -((-microseconds + tick / 2) / tick)
    }
}
