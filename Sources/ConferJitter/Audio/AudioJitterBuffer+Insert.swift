public import ConferMedia

extension AudioJitterBuffer {
    /// Stores one Opus packet whose payload is `payloadBytes` (copied; the caller keeps
    /// ownership), that arrived at `arrival`.
    ///
    /// In order: a packet far outside the stream (sequence number more than 3000 away, or
    /// a timestamp further from the playing position than the storage and the maximum
    /// delay reach) is dropped unless the packet before it was such a packet and this one
    /// continues it, which restarts the stream; a duplicate is counted and dropped; the
    /// rest count as received, feed the jitter and delay estimates, and are stored unless
    /// their payload is not Opus or their audio was already played.
    @discardableResult
    public mutating func insert(sequenceNumber: UInt16, rtpTimestamp: UInt32, payloadBytes: UnsafeRawBufferPointer,
                                arrival: Timestamp) -> AudioJitterBufferInsertOutcome {
        latestArrival = max(latestArrival, arrival)
        var restarted = false
        if let highest = sequences.highest {
            let sequence = sequenceUnwrapper.peekUnwrap(sequenceNumber)
            let timestamp = timestampUnwrapper.peekUnwrap(rtpTimestamp)
            if isOutOfStream(sequence: sequence, timestamp: timestamp, highest: highest) {
                if let candidate = restartCandidate, sequenceNumber == candidate.sequence &+ 1,
                   rtpTimestamp &- candidate.timestamp <= UInt32(conferSampleRate) {
                    restartStream()
                    restarted = true
                } else {
                    restartCandidate = (sequenceNumber, rtpTimestamp)
                    counters.packetsReceived += 1
                    counters.packetsDiscarded += 1
                    return .outOfStream
                }
            }
        }
        restartCandidate = nil
        let sequence = sequenceUnwrapper.unwrap(sequenceNumber)
        let timestamp = timestampUnwrapper.unwrap(rtpTimestamp)
        guard sequences.record(sequence) else {
            counters.packetsDuplicated += 1
            return .duplicate
        }
        counters.packetsReceived += 1
        updateJitter(timestamp: timestamp, arrival: arrival)

        guard payloadBytes.count <= configuration.maximumPayloadSize, let info = OpusPacketInfo.parse(payloadBytes) else {
            counters.packetsUndecodable += 1
            return .undecodable
        }
        let relativeDelay = delayEstimator.update(timestamp: timestamp, arrival: arrival, frameCount: info.frameCount)
        lastPacketFrames = info.frameCount
        if info.hasFEC { fecSeenAt = arrival }
        lastTimestamp = timestamp
        if let playout, timestamp < playout {
            counters.packetsDiscarded += 1
            return .tooLate
        }
        if packets.isFull || wouldOverflow(timestamp: timestamp, frameCount: info.frameCount) {
            flushToTarget()
        }
        guard packets.insert(sequence: sequence, timestamp: timestamp, info: info, arrival: arrival,
                             relativeDelay: relativeDelay, payload: payloadBytes) else {
            counters.packetsDiscarded += 1
            return .conflictingTimestamp
        }
        measureDelay(timestamp: timestamp, arrival: arrival, relativeDelay: relativeDelay)
        return restarted ? .acceptedAfterRestart : .accepted
    }

    /// Whether a packet is too far from the stream to belong to it. Checked before the
    /// packet reaches the unwrappers: one wild timestamp taken as their reference would
    /// shift every later one by 2³².
    private func isOutOfStream(sequence: Int64, timestamp: Int64, highest: Int64) -> Bool {
        if abs(sequence - highest) > Self.maximumSequenceJump { return true }
        let reference = playout.map { $0 + concealedAhead } ?? packets.first?.timestamp ?? lastTimestamp
        guard let reference else { return false }
        let reach = Self.frames(microseconds: configuration.maximumBufferedDuration.microseconds
            + configuration.maximumDelay.microseconds)
        return abs(timestamp - reference) > reach
    }

    /// Starts over on a new stream: what it expected is kept for the loss count, stored
    /// packets are discarded, and playing resumes once the new stream has buffered its target
    /// (concealment bridges the gap, so there is no click).
    private mutating func restartStream() {
        counters.streamResets += 1
        sequences.closeEpoch()
        sequenceUnwrapper.reset()
        timestampUnwrapper.reset()
        counters.packetsDiscarded += Int64(packets.removeAll())
        delayEstimator.resetWindow()
        playout = nil
        concealedAhead = 0
        inDTX = false
        lastTransit = nil
        lastTimestamp = nil
        currentDelay = nil
        stretchMode = .none
        restartCandidate = nil
    }

    /// RFC 3550 §6.4.1: J += (|D| − J) / 16 over consecutive arrivals.
    private mutating func updateJitter(timestamp: Int64, arrival: Timestamp) {
        let transit = arrival.seconds - Double(timestamp) / Double(conferSampleRate)
        if let lastTransit { jitter += (abs(transit - lastTransit) - jitter) / 16 }
        lastTransit = transit
    }

    /// Whether storing this packet would hold more audio than configured.
    private func wouldOverflow(timestamp: Int64, frameCount: Int) -> Bool {
        let end = max(packets.endTimestamp ?? Int64.min, timestamp + Int64(frameCount))
        let position = playout.map { $0 + concealedAhead } ?? packets.first.map { min($0.timestamp, timestamp) } ?? timestamp
        return end - position > Self.frames(microseconds: configuration.maximumBufferedDuration.microseconds)
    }

    /// Drops the oldest packets until what remains spans about the target delay, then
    /// carries on from the new first packet (fading out what was decoded before it and
    /// merging in, since the audio between is skipped).
    mutating func flushToTarget() {
        counters.bufferFlushes += 1
        let keep = Self.frames(microseconds: targetDelayMicroseconds) + Int64(lastPacketFrames)
        var dropped = 0
        while packets.count > 1, let end = packets.endTimestamp, let first = packets.first,
              end - first.timestamp > keep || packets.isFull {
            packets.removeFirst()
            dropped += 1
        }
        counters.packetsDiscarded += Int64(dropped)
        guard playout != nil, let head = packets.first else { return }
        queue.fadeOutTail(frames: Self.mergeFrames)
        realGain = 0
        playout = head.timestamp
        lastSequence = head.sequence - 1
        concealedAhead = 0
        currentDelay = nil
    }

    /// Updates the measured wait of a least-delayed packet from one that just arrived:
    /// the time until its first sample plays, plus its own relative delay.
    private mutating func measureDelay(timestamp: Int64, arrival: Timestamp, relativeDelay: Int64) {
        guard let playout, let lastPull, !inDTX else { return }
        let framesAhead = Int64(queue.count) + max(0, timestamp - playout - concealedAhead)
        let nextPull = lastPull + .milliseconds(10)
        let wait = Double((nextPull - arrival).microseconds + Self.microseconds(frames: framesAhead))
        let sample = wait + Double(relativeDelay)
        currentDelay = currentDelay.map { 0.8 * $0 + 0.2 * sample } ?? sample
    }
}
