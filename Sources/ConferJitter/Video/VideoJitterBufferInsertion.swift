import ConferMedia
import ConferRTP

extension VideoJitterBuffer {
    /// After this many far-away packets in a row, each following the last, the sender is
    /// taken to have restarted its sequence numbers.
    static let farPacketsToRestart = 4
    /// How far before the first packet to arrive a stream may turn out to start (reordering).
    static let startReorderWindow: Int64 = 64

    mutating func insertPacket(sequenceNumber raw: UInt16, timestamp: UInt32, marker: Bool,
                               payload: UnsafeRawBufferPointer, isRetransmission: Bool, arrival: Timestamp) {
        guard payload.count <= configuration.maxPayloadSize else {
            counters.packetsMalformed += 1
            return
        }
        var boundaries = PayloadBoundaries(isPartitionHead: false, isFrameHead: false, isPartitionTail: false)
        if !payload.isEmpty {
            do {
                boundaries = try reader.boundaries(of: payload, marker: marker)
            } catch {
                counters.packetsMalformed += 1
                return
            }
        }
        if !isStarted { start(at: raw) }
        var number = unwrap(raw)
        let capacity = Int64(packets.capacity)
        if number - newestSequenceNumber > capacity || newestSequenceNumber - number >= Int64(received.size) {
            guard noteFarPacket(raw) else {
                counters.packetsOutOfRange += 1
                return
            }
            restartStream(reason: .streamRestart, at: arrival)
            start(at: raw)
            number = unwrap(raw)
        } else {
            farRun = 0
        }

        let wasReceived = received.contains(number)
        if wasReceived == true {
            counters.packetsDuplicated += 1
            if isRetransmission { counters.retransmittedPacketsReceived += 1 }
            return
        }
        if number < nextSequenceNumber {
            // A reordered packet from before the first one, while nothing was played yet:
            // the stream starts earlier than it seemed.
            let isEarlierStart = !hasConsumedFrame && number > startFloor
            if !isEarlierStart {
                countReceived(number, known: wasReceived != nil, payloadSize: payload.count, timestamp: timestamp,
                              isRetransmission: isRetransmission, arrival: arrival)
                counters.packetsLate += 1
                return
            }
            if configuration.nackEnabled {
                // Numbers between this packet and the old start that have not come are missing.
                var missing = number + 1
                while missing < nextSequenceNumber {
                    if received.contains(missing) != true { nack.markMissing(missing, at: arrival) }
                    missing += 1
                }
                nackWakeupIsStale = true
            }
            nextSequenceNumber = number
            firstSequenceNumber = min(firstSequenceNumber, number)
        }
        let isCertainHead = reader.isCertainFrameHead(payload, boundaries: boundaries)
        if !hasConsumedFrame, number == nextSequenceNumber, !payload.isEmpty, !isCertainHead,
           configuration.nackEnabled, number > startFloor {
            // The earliest packet so far is not a frame's first: the stream began before it,
            // and the packet before is missing (the head of the first keyframe, often).
            nack.markMissing(number - 1, at: arrival)
            nackWakeupIsStale = true
        }
        if number >= nextSequenceNumber + capacity { makeRoom(for: number, at: arrival) }

        countReceived(number, known: true, payloadSize: payload.count, timestamp: timestamp,
                      isRetransmission: isRetransmission, arrival: arrival)
        if number > newestSequenceNumber { newestSequenceNumber = number }
        if configuration.nackEnabled {
            switch nack.packetArrived(number, isRetransmission: isRetransmission, at: arrival) {
            case .inOrder:
                break
            case .gap, .recovered:
                nackWakeupIsStale = true
            case .overflow:
                nackWakeupIsStale = true
                for given in nack.givenUp { addLostMarker(given) }
                requestKeyframe(.overflow, at: arrival)
            }
        }
        removeLostMarker(number)
        packets.store(number, timestamp: timestamp, boundaries: boundaries, isCertainHead: isCertainHead,
                      isRetransmission: isRetransmission, arrival: arrival, payload: payload)
        if !payload.isEmpty { completeFrame(around: number, timestamp: timestamp, at: arrival) }
    }

    private mutating func start(at raw: UInt16) {
        isStarted = true
        nextSequenceNumber = Int64(raw)
        newestSequenceNumber = Int64(raw)
        firstSequenceNumber = Int64(raw)
        startFloor = Int64(raw) - Self.startReorderWindow
        nextIsFrameBoundary = false
    }

    /// The unwrapped number nearest the newest one.
    private func unwrap(_ raw: UInt16) -> Int64 {
        newestSequenceNumber + Int64(Int16(bitPattern: raw &- UInt16(truncatingIfNeeded: newestSequenceNumber)))
    }

    /// Counts a far-away packet; whether enough followed each other to mean a restart.
    private mutating func noteFarPacket(_ raw: UInt16) -> Bool {
        let step = raw &- lastFarSequenceNumber
        farRun = farRun > 0 && step >= 1 && step <= 64 ? farRun + 1 : 1
        lastFarSequenceNumber = raw
        if farRun >= Self.farPacketsToRestart {
            farRun = 0
            return true
        }
        return false
    }

    /// Counts a packet not seen before and notes it as received.
    private mutating func countReceived(_ number: Int64, known: Bool, payloadSize: Int, timestamp: UInt32,
                                        isRetransmission: Bool, arrival: Timestamp) {
        if isRetransmission {
            counters.retransmittedPacketsReceived += 1
            if known { uniqueRetransmissions += 1 }
        } else {
            guard known else { return }
            counters.packetsReceived += 1
            counters.bytesReceived += payloadSize
            updateInterarrivalJitter(timestamp: timestamp, arrival: arrival)
        }
        received.insert(number)
    }

    /// RFC 3550 §6.4.1: J += (|D| − J) / 16, in RTP clock ticks, original packets only.
    private mutating func updateInterarrivalJitter(timestamp: UInt32, arrival: Timestamp) {
        let arrivalTicks = UInt32(truncatingIfNeeded: arrival.ticks(rate: codec.rtpClockRate))
        let transit = arrivalTicks &- timestamp
        if let lastTransit {
            let difference = abs(Double(Int32(bitPattern: transit &- lastTransit)))
            jitterTicks += (difference - jitterTicks) / 16
        }
        lastTransit = transit
    }

    // MARK: Lost markers

    mutating func addLostMarker(_ number: Int64) {
        guard number >= nextSequenceNumber else { return }
        var index = lostMarkers.count
        while index > 0, lostMarkers[index - 1] > number { index -= 1 }
        if index > 0, lostMarkers[index - 1] == number { return }
        lostMarkers.insert(number, at: index)
    }

    private mutating func removeLostMarker(_ number: Int64) {
        guard !lostMarkers.isEmpty, let index = lostMarkers.firstIndex(of: number) else { return }
        lostMarkers.remove(at: index)
    }

    /// Drops the markers before the decode position.
    mutating func pruneLostMarkers() {
        var count = 0
        while count < lostMarkers.count, lostMarkers[count] < nextSequenceNumber { count += 1 }
        if count > 0 { lostMarkers.removeFirst(count) }
    }

    // MARK: Frames

    /// Records the frame `number` completes, if it completes one.
    mutating func completeFrame(around number: Int64, timestamp: UInt32, at now: Timestamp) {
        let span = Int64(packets.capacity)
        var last = number
        while !packets[last].boundaries.isPartitionTail {
            let next = last + 1
            guard next - number < span, packets.isPresent(next) else { return }
            let slot = packets[next]
            // A certain head (VP8, VP9, an H.264 SPS or AUD) begins the next frame; other H.264
            // heads (PPS, SEI, the first slice) may sit inside one access unit.
            guard !slot.isPadding, !slot.isInFrame, slot.timestamp == timestamp, !slot.isCertainHead else { return }
            last = next
        }
        var first = number
        while !startsFrame(first, timestamp: timestamp) {
            let previous = first - 1
            guard previous >= nextSequenceNumber, last - previous < span, packets.isPresent(previous) else { return }
            let slot = packets[previous]
            guard !slot.isPadding, !slot.isInFrame, slot.timestamp == timestamp,
                  !slot.boundaries.isPartitionTail else { return }
            first = previous
        }
        recordFrame(first: first, last: last, timestamp: timestamp, at: now)
    }

    /// Whether the packet `number` begins a frame, judging by itself and what is before it.
    private func startsFrame(_ number: Int64, timestamp: UInt32) -> Bool {
        let slot = packets[number]
        guard slot.boundaries.isPartitionHead else { return false }
        let previous = number - 1
        if previous < nextSequenceNumber {
            // Once a frame was consumed nothing before the decode position can still come, so
            // any head there starts a frame; before that, the stream may turn out to start earlier.
            return slot.isCertainHead || (hasConsumedFrame && (nextIsFrameBoundary || slot.boundaries.isFrameHead))
        }
        guard packets.isPresent(previous) else { return slot.isCertainHead }
        let before = packets[previous]
        return before.isPadding || before.boundaries.isPartitionTail || before.timestamp != timestamp
    }

    private mutating func recordFrame(first: Int64, last: Int64, timestamp: UInt32, at now: Timestamp) {
        var firstArrival = packets[first].arrival
        var hasRetransmission = false
        var isKeyframe = false
        var number = first
        while number <= last {
            packets.markInFrame(number)
            let slot = packets[number]
            firstArrival = min(firstArrival, slot.arrival)
            hasRetransmission = hasRetransmission || slot.isRetransmission
            if codec == .h264 && !isKeyframe {
                isKeyframe = packets.withPayload(number) { reader.marksKeyframe($0) }
            }
            number += 1
        }
        var description = packets.withPayload(first) { reader.describe(firstPayload: $0) }
        description.isKeyframe = description.isKeyframe || isKeyframe
        let pictureID = decodability.unwrapPictureID(description.pictureID, modulus: description.pictureIDModulus)
        let tl0Index = description.dependency == .temporal ? decodability.unwrapTL0(description.tl0Index) : 0
        let mapping = timing.map(rtpTimestamp: timestamp, completedAt: now)
        if let variation = mapping.variation, !hasRetransmission {
            estimator.addSample(variation, at: now)
        }
        if hasRetransmission { lastRetransmittedFrameAt = now }
        counters.framesReceived += 1
        let record = VideoFrameRecord(first: first, last: last, localCapture: mapping.localCapture,
                                      mediaTime: mapping.mediaTime, firstArrival: firstArrival,
                                      description: description, pictureID: pictureID, tl0Index: tl0Index)
        var index = frames.count
        while index > 0, frames[index - 1].first > first { index -= 1 }
        frames.insert(record, at: index)
    }
}
