internal import ConferMedia

extension AudioJitterBuffer {
    /// Starts playing the first packet once it has waited the target delay (or, if the
    /// stream is slow to fill, the maximum delay).
    mutating func startIfReady(now: Timestamp) {
        guard let head = packets.first else { return }
        let wait = waitIfPlayedNext(head, now: now)
        guard wait >= Double(targetDelayMicroseconds)
            || (now - head.arrival).microseconds >= configuration.maximumDelay.microseconds else { return }
        playout = head.timestamp
        lastSequence = head.sequence - 1
        concealedAhead = 0
        expandFrames = 0
        inDTX = false
        currentDelay = wait
        stretchMode = .none
        // After a restart, whatever bridged the gap (concealment fading to noise) merges
        // into the new stream as after any loss.
        hasPlayed = true
    }

    /// How long the least-delayed packet would have waited if `entry` played right after
    /// the audio already decoded, in microseconds.
    func waitIfPlayedNext(_ entry: AudioJitterBufferPacketStore.Entry, now: Timestamp) -> Double {
        Double((now - entry.arrival).microseconds + Self.microseconds(frames: queue.count) + entry.relativeDelay)
    }

    /// Appends audio until the FIFO holds at least `frames` frames.
    mutating func refill(to frames: Int, now: Timestamp) {
        // Every step appends audio or drops a packet, so this ends; the bound is a backstop.
        var steps = 0
        while queue.count < frames, steps < 4 * configuration.maximumPackets + 64 {
            step(now: now)
            steps += 1
        }
        if queue.count < frames {
            let buffer = queue.append(frames: frames - queue.count, kind: hasPlayed ? .silentConcealed : .silence,
                                      arrival: now)
            buffer.update(repeating: 0)
        }
    }

    /// One decision of NetEQ's decision logic: which audio comes next.
    mutating func step(now: Timestamp) {
        guard let playout else {
            // Not playing: conceal across a restart, or silence before the first packet.
            if hasPlayed { expand() } else { silence() }
            return
        }
        while let head = packets.first, head.timestamp < playout {
            packets.removeFirst()
            counters.packetsDiscarded += 1
        }
        guard let head = packets.first else {
            if inDTX { comfortNoise(kind: .comfortNoise) } else { expand() }
            return
        }
        let gap = head.timestamp - playout
        if gap == 0 {
            decodeFirst(now: now)
            return
        }
        if inDTX || head.sequence == lastSequence + 1 {
            // Nothing was lost: the sender sent no audio for the gap (DTX, or it paused).
            // Fill with comfort noise, and start the next packet as soon as it has waited
            // the target — the silence is a free chance to reset the delay.
            let wait = waitIfPlayedNext(head, now: now)
            if concealedAhead >= gap || wait >= Double(targetDelayMicroseconds) {
                skip(to: head)
                currentDelay = wait
                decodeFirst(now: now)
            } else {
                comfortNoise(kind: .comfortNoise)
            }
            return
        }
        let remaining = gap - concealedAhead
        if remaining <= 0 || (concealedAhead >= Self.maximumConcealmentBeforeSkip
                              && waitIfPlayedNext(head, now: now) >= Double(targetDelayMicroseconds)) {
            skip(to: head)
            decodeFirst(now: now)
            return
        }
        if head.hasFEC, remaining <= Int64(head.frameCount), head.frameCount % 480 == 0, decodeFEC(now: now) {
            return
        }
        expand()
    }

    /// Moves the position to `entry` without playing what lies between.
    mutating func skip(to entry: AudioJitterBufferPacketStore.Entry) {
        playout = entry.timestamp
        lastSequence = entry.sequence - 1
        concealedAhead = 0
    }

    /// Decodes packets that are due, without concealing, until `frames` are queued.
    mutating func decodeDue(upTo frames: Int, now: Timestamp) {
        while queue.count < frames, !inDTX, let playout, let head = packets.first, head.timestamp == playout,
              realGain == 1, queue.canGrow(by: head.frameCount) {
            decodeFirst(now: now)
        }
    }

    /// Accelerates or preemptively expands when the measured delay is off target.
    ///
    /// Hysteresis as in NetEQ: accelerating starts once the delay is 10 ms (or a quarter)
    /// above the target, expanding once it is 5 ms (or an eighth) below, and either goes on
    /// until the delay is within one shortest period of the target. No period is longer
    /// than the remaining error, so the delay never overshoots by more than that.
    mutating func timeStretchIfNeeded(now: Timestamp) {
        guard let delay = currentDelay, realGain == 1, expandFrames == 0, !inDTX else {
            stretchMode = .none
            return
        }
        let target = Double(targetDelayMicroseconds)
        let error = delay - target
        let shortest = Double(Self.microseconds(frames: TimeStretcher.minimumPeriod))
        switch stretchMode {
        case .none:
            if error > max(10_000, target / 4) { stretchMode = .accelerating }
            else if -error > max(5_000, target / 8) { stretchMode = .expanding }
        case .accelerating:
            if error < shortest { stretchMode = .none }
        case .expanding:
            if -error < shortest { stretchMode = .none }
        }
        switch stretchMode {
        case .none:
            return
        case .accelerating:
            let maximum = min(TimeStretcher.maximumPeriod, Int(Self.frames(microseconds: Int64(error))))
            decodeDue(upTo: 2 * maximum + 2 * TimeStretcher.decimation, now: now)
            let available = queue.decodedPrefix
            guard available >= 2 * TimeStretcher.minimumPeriod else { return }
            let window = queue.frames(from: 0, count: min(available, 2 * maximum + 2 * TimeStretcher.decimation))
            guard let period = stretcher.period(in: UnsafeBufferPointer(window), channels: channels, origin: 0,
                                                mode: .accelerate, maximum: maximum) else { return }
            queue.removePeriod(period)
            counters.removedSamplesForAcceleration += Int64(period)
            currentDelay = delay - Double(Self.microseconds(frames: period))
        case .expanding:
            let maximum = min(TimeStretcher.maximumPeriod, Int(Self.frames(microseconds: Int64(-error))), queue.realHistory)
            decodeDue(upTo: maximum + TimeStretcher.decimation, now: now)
            let future = min(queue.decodedPrefix, maximum + TimeStretcher.decimation)
            let history = min(queue.realHistory, queue.history, maximum + TimeStretcher.decimation)
            guard future >= TimeStretcher.minimumPeriod, history >= TimeStretcher.minimumPeriod,
                  queue.canGrow(by: maximum) else { return }
            let window = queue.frames(from: -history, count: history + future)
            guard let period = stretcher.period(in: UnsafeBufferPointer(window), channels: channels, origin: history,
                                                mode: .expand, maximum: maximum) else { return }
            queue.insertPeriod(period)
            counters.insertedSamplesForDeceleration += Int64(period)
            currentDelay = delay + Double(Self.microseconds(frames: period))
        }
    }
}
