import ConferMedia
import ConferRTP

extension VideoJitterBuffer {
    // MARK: Timers

    /// Sends the NACKs due now and notes the packets given up.
    mutating func runNack(at now: Timestamp) {
        guard configuration.nackEnabled else { return }
        refreshNackWakeup()
        guard let due = nackWakeup, now >= due else { return }
        let batch = nack.poll(at: now, retryInterval: retryInterval)
        for given in nack.givenUp { addLostMarker(given) }
        nackWakeupIsStale = true
        if !batch.isEmpty { actions.append(.sendNACK(batch)) }
    }

    mutating func refreshNackWakeup() {
        guard nackWakeupIsStale else { return }
        nackWakeup = configuration.nackEnabled ? nack.nextWakeup(retryInterval: retryInterval) : nil
        nackWakeupIsStale = false
    }

    /// Repeats a keyframe request while one is needed and none is on its way.
    mutating func runKeyframeRequests(at now: Timestamp) {
        guard keyframes.isWaiting else { return }
        guard decodability.needsKeyframe else {
            keyframes.keyframeReceived()
            return
        }
        guard let next = keyframes.nextWakeup(rtt: rtt), now >= next, !hasQueuedKeyframe else { return }
        if let request = keyframes.poll(at: now, rtt: rtt) { actions.append(.requestKeyframe(request)) }
    }

    var hasQueuedKeyframe: Bool {
        frames.contains { $0.description.isKeyframe && $0.description.spatialLayer == 0 }
    }

    mutating func requestKeyframe(_ reason: KeyframeRequestReason, at now: Timestamp) {
        // A recorder asks for nothing: it keeps what the sender sends.
        guard !hasQueuedKeyframe, !configuration.deliversWhenComplete else { return }
        if let request = keyframes.keyframeNeeded(reason, at: now, rtt: rtt) { actions.append(.requestKeyframe(request)) }
    }

    // MARK: Target delay

    mutating func updateTargetDelay(at now: Timestamp) {
        estimator.update(at: now)
        var desired = estimator.estimate + configuration.renderMargin
        if configuration.nackEnabled, let last = lastRetransmittedFrameAt, now - last <= configuration.retransmissionMemory {
            // A lost packet is noticed when a later one arrives — up to a frame interval later
            // when it was a frame's last — and its retransmission takes an RTT on top.
            desired = desired + rtt + TimeDelta(microseconds: timing.frameInterval)
        }
        desired = max(desired, configuration.minDelay)
        let frameCap = TimeDelta(microseconds: timing.frameInterval * Int64(max(1, configuration.maxDelayFrames)))
        let cap = min(configuration.maxDelay, frameCap)
        currentTarget = target.update(desired: desired, cap: cap, decayTime: configuration.delayDecayTime, at: now)
    }

    // MARK: Deciding

    /// Delivers, drops and gives up, in decode order, what can be decided at `now`.
    mutating func process(at now: Timestamp) {
        updateTargetDelay(at: now)
        frameWakeup = nil
        while let head = frames.first {
            skipPadding(upTo: head.first)
            let hasGap = head.first > nextSequenceNumber
            if configuration.deliversWhenComplete {
                guard deliverWhenComplete(head, hasGap: hasGap, at: now) else { return }
                continue
            }
            let renderTime = head.localCapture + currentTarget
            let contiguous = !hasGap && decodability.lastConsumedWasDelivered
            if decodability.isDecodable(head, contiguous: contiguous, afterGap: hasGap) {
                guard now >= renderTime else {
                    frameWakeup = renderTime
                    return
                }
                if now - renderTime > configuration.maxLateness, let keyframe = dueKeyframeIndex(at: now), keyframe > 0 {
                    for _ in 0 ..< keyframe { dropHead(.tooLate, at: now) }
                    continue
                }
                if hasGap { loseGap(upTo: head.first) }
                deliverHead(renderTime: renderTime, at: now)
                continue
            }
            guard hasGap else {
                dropHead(.notDecodable, at: now)
                continue
            }
            // A keyframe after it is due: waiting for the gap would only delay it.
            if let keyframe = dueKeyframeIndex(at: now), keyframe > 0 {
                for _ in 0 ..< keyframe { dropHead(.notDecodable, at: now) }
                continue
            }
            // It may need what is missing before it: wait for retransmissions, within limits.
            let deadline = configuration.nackEnabled ? renderTime + configuration.maxLateness : renderTime
            if now >= deadline || (lostMarkers.first.map { $0 < head.first } ?? false) {
                loseGap(upTo: head.first)
                continue
            }
            frameWakeup = deadline
            return
        }
    }

    /// ``VideoJitterBufferConfiguration/deliversWhenComplete``: delivers `head` now unless a
    /// gap before it may still fill (then false, with the wake-up set for when it is given up).
    /// True when something was done and the queue is to be looked at again.
    private mutating func deliverWhenComplete(_ head: VideoFrameRecord, hasGap: Bool, at now: Timestamp) -> Bool {
        guard hasGap else {
            deliverHead(renderTime: now, at: now)
            return true
        }
        // The gap may begin with packets of an incomplete frame: what is waited for is the
        // first packet missing. With none missing, those packets lost their frame's start
        // before the decode position, and nothing can complete them.
        var missing = nextSequenceNumber
        while missing < head.first, packets.isPresent(missing) { missing += 1 }
        guard missing < head.first else {
            loseGap(upTo: head.first)
            return true
        }
        let deadline = head.firstArrival + configuration.maxLateness
        guard newestSequenceNumber - missing >= Int64(max(1, configuration.reorderWindow)) || now >= deadline else {
            frameWakeup = deadline
            return false
        }
        // Give up the run of missing packets only, then look again at the packet after it: a
        // frame whose start could not be told while the packet before it was missing (an
        // H.264 access unit after a lost marker packet) may begin there.
        var resume = missing + 1
        while resume < head.first, !packets.isPresent(resume) { resume += 1 }
        loseGap(upTo: resume)
        if resume < head.first, !packets[resume].isInFrame, !packets[resume].isPadding {
            completeFrame(around: resume, timestamp: packets[resume].timestamp, at: now)
        }
        return true
    }

    /// The index of the last queued keyframe already due, if any.
    private func dueKeyframeIndex(at now: Timestamp) -> Int? {
        var found: Int?
        for index in frames.indices.dropFirst() where frames[index].description.isKeyframe
            && frames[index].description.spatialLayer == 0 && frames[index].localCapture + currentTarget <= now {
            found = index
        }
        return found
    }

    /// Steps over padding packets right at the decode position.
    private mutating func skipPadding(upTo end: Int64) {
        while nextSequenceNumber < end, packets.isPresent(nextSequenceNumber), packets[nextSequenceNumber].isPadding {
            packets.release(nextSequenceNumber)
            nextSequenceNumber += 1
        }
    }

    /// Gives up everything before `end`: missing packets and incomplete frames become a lost item.
    mutating func loseGap(upTo end: Int64) {
        guard end > nextSequenceNumber else { return }
        var number = nextSequenceNumber
        while number < end {
            packets.release(number)
            number += 1
        }
        decodability.gapLost()
        advance(to: end, boundary: false)
    }

    /// Moves the decode position, forgetting NACKs and lost markers before it.
    private mutating func advance(to end: Int64, boundary: Bool) {
        nextSequenceNumber = end
        nextIsFrameBoundary = boundary
        if configuration.nackEnabled, let oldest = nack.oldestPending, oldest < end {
            nack.forget(before: end)
            nackWakeupIsStale = true
        }
        pruneLostMarkers()
    }

    private mutating func releaseFrame(_ frame: VideoFrameRecord) {
        if hasConsumedFrame, nextIsFrameBoundary, frame.first == nextSequenceNumber {
            timing.noteFrameInterval(frame.mediaTime - lastConsumedMediaTime)
        }
        lastConsumedMediaTime = frame.mediaTime
        var number = frame.first
        while number <= frame.last {
            packets.release(number)
            number += 1
        }
        hasConsumedFrame = true
        advance(to: frame.last + 1, boundary: true)
    }

    mutating func dropHead(_ reason: VideoFrameDropReason, at now: Timestamp) {
        let head = frames.removeFirst()
        if head.first > nextSequenceNumber { loseGap(upTo: head.first) }
        releaseFrame(head)
        counters.framesDropped += 1
        actions.append(.frameDropped(reason))
        decodability.dropped(head)
        if decodability.needsKeyframe {
            requestKeyframe(decodability.hasDelivered ? .frameLost : .streamStart, at: now)
        }
    }

    private mutating func deliverHead(renderTime: Timestamp, at now: Timestamp) {
        let head = frames.removeFirst()
        if outputsUsed == outputs.count { outputs.append(EncodedFrame(codec: codec)) }
        // Take the frame out of the pool so its buffers are uniquely referenced while written.
        var frame = outputs[outputsUsed]
        outputs[outputsUsed] = EncodedFrame(codec: codec)
        var reader = self.reader
        frame.codec = codec
        frame.data.removeAll(keepingCapacity: true)
        frame.duration = .zero
        reader.beginFrame(&frame)
        var failed = false
        var number = head.first
        while number <= head.last, !failed {
            failed = packets.withPayload(number) { payload -> Bool in
                do throws(PayloadError) {
                    try reader.append(payload, to: &frame)
                    return false
                } catch {
                    return true
                }
            }
            number += 1
        }
        if !failed {
            do throws(PayloadError) { try reader.endFrame(&frame) } catch { failed = true }
        }
        self.reader = reader
        if failed {
            outputs[outputsUsed] = frame
            frames.insert(head, at: 0)
            dropHead(.malformed, at: now)
            return
        }
        releaseFrame(head)
        frame.timestamp = head.mediaTime
        frame.isKeyframe = frame.isKeyframe || head.description.isKeyframe
        outputs[outputsUsed] = frame
        outputsUsed += 1
        decodability.delivered(head)
        if head.description.isKeyframe { keyframes.keyframeReceived() }
        counters.framesDelivered += 1
        counters.jitterBufferEmittedCount += 1
        counters.jitterBufferDelay += max(.zero, now - head.firstArrival).seconds
        counters.jitterBufferTargetDelay += currentTarget.seconds
        if target.isCapped { counters.delayCapHits += 1 }
        actions.append(.deliver(frame, renderTime: renderTime))
    }

    // MARK: Overflow and restarts

    /// Gives up the oldest frames and gaps until `number` fits in the ring.
    mutating func makeRoom(for number: Int64, at now: Timestamp) {
        let needed = number - Int64(packets.capacity) + 1
        while let head = frames.first, head.first < needed {
            dropHead(.bufferFull, at: now)
        }
        if nextSequenceNumber < needed {
            loseGap(upTo: needed)
            if decodability.hasDelivered { requestKeyframe(.overflow, at: now) }
        }
    }

    /// Drops everything buffered; the next packet starts a new stream.
    mutating func restartStream(reason: VideoFrameDropReason, at now: Timestamp) {
        for _ in frames {
            counters.framesDropped += 1
            actions.append(.frameDropped(reason))
        }
        frames.removeAll(keepingCapacity: true)
        packets.releaseAll()
        received.reset()
        if isStarted { expectedBeforeRestart += Int(newestSequenceNumber - firstSequenceNumber + 1) }
        isStarted = false
        hasConsumedFrame = false
        nextIsFrameBoundary = false
        farRun = 0
        lostMarkers.removeAll(keepingCapacity: true)
        nack.reset()
        nackWakeupIsStale = true
        decodability.reset()
        timing = VideoTiming(clockRate: codec.rtpClockRate, discontinuity: configuration.timingDiscontinuity)
        lastTransit = nil
        counters.streamRestarts += 1
    }
}
