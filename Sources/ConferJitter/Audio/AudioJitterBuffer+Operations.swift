internal import ConferMedia

extension AudioJitterBuffer {
    /// Normal decoding (or a merge, after concealment): decodes the first packet, which is
    /// due. A payload libopus refuses is dropped and counted; the step after conceals it.
    mutating func decodeFirst(now: Timestamp) {
        guard let slot = packets.firstSlot else { return }
        let entry = packets.entries[slot]
        // A DTX packet, and the sender's periodic noise update between DTX packets, carry
        // the silence: keep it from dropping below the comfort noise around it.
        let fillsSilence = inDTX || entry.isDTX
        do {
            let decoded = try decoder.decode(entry.frame)
            packets.removeFirst()
            guard decoded.frameCount > 0 else {
                counters.packetsUndecodable += 1
                return
            }
            appendDecoded(decoded, arrival: entry.arrival, fillingSilence: fillsSilence)
            playout = entry.timestamp + Int64(decoded.frameCount)
        } catch {
            packets.removeFirst()
            counters.packetsUndecodable += 1
            return
        }
        lastSequence = entry.sequence
        inDTX = entry.isDTX
    }

    /// FEC: recovers the packet before the first one from its in-band redundancy; false
    /// (nothing done) when libopus refuses.
    mutating func decodeFEC(now: Timestamp) -> Bool {
        guard let slot = packets.firstSlot else { return false }
        let entry = packets.entries[slot]
        do {
            let recovered = try decoder.decodeFEC(from: entry.frame, durationMs: entry.frameCount / 48, timestamp: .zero)
            guard recovered.frameCount > 0 else { return false }
            appendDecoded(recovered, arrival: entry.arrival)
        } catch {
            return false
        }
        counters.fecPacketsRecovered += 1
        skip(to: entry)
        return true
    }

    /// Queues decoded audio, merging it in after concealment or comfort noise, and lets the
    /// comfort-noise model learn from it; with `fillingSilence`, 10 ms blocks quieter than
    /// the comfort noise get enough of it added to reach its level.
    private mutating func appendDecoded(_ decoded: borrowing AudioFrame, arrival: Timestamp, fillingSilence: Bool = false) {
        let frames = decoded.frameCount
        let target = queue.append(frames: frames, kind: .decoded, arrival: arrival)
        decoded.samples.withUnsafeBufferPointer { source in
            _ = target.update(fromContentsOf: source.prefix(target.count))
        }
        if realGain < 1 { merge(into: target) }
        var offset = 0
        while offset < target.count {
            let length = min(Self.framesPerPull * channels, target.count - offset)
            let block = UnsafeMutableBufferPointer(rebasing: target[offset..<(offset + length)])
            noise.analyze(UnsafeBufferPointer(block), channels: channels)
            if fillingSilence { fillSilence(block) }
            offset += length
        }
        realGain = 1
        expandFrames = 0
        concealedAhead = 0
    }

    /// Adds comfort noise to a block quieter than it, so that the block's power becomes the noise's.
    private mutating func fillSilence(_ block: UnsafeMutableBufferPointer<Int16>) {
        let level = Float(noise.rms)
        let blockRMS = Self.rms(block)
        guard blockRMS < level else { return }
        let fill = UnsafeMutableBufferPointer(rebasing: noiseScratch[0..<block.count])
        noise.generate(into: fill, channels: channels)
        let gain = (1 - blockRMS * blockRMS / (level * level)).squareRoot()
        for index in block.indices {
            block[index] = Int16(clamping: Int((Float(block[index]) + gain * Float(fill[index])).rounded()))
        }
    }

    /// Merge: cross-fades from what concealment was playing (its real part at `realGain`,
    /// the rest comfort noise) into the decoded audio over 5 ms, so resuming never clicks.
    private mutating func merge(into decoded: UnsafeMutableBufferPointer<Int16>) {
        let frames = min(Self.mergeFrames, decoded.count / channels, Self.framesPerPull)
        guard frames > 0 else { return }
        let noiseFrames = UnsafeMutableBufferPointer(rebasing: noiseScratch[0..<(frames * channels)])
        noise.generate(into: noiseFrames, channels: channels)
        let start = realGain
        for frame in 0..<frames {
            let weight = Float(frame + 1) / Float(frames + 1)
            let decodedGain = start + (1 - start) * weight
            let noiseGain = (1 - start) * (1 - weight)
            for channel in 0..<channels {
                let index = frame * channels + channel
                let mixed = decodedGain * Float(decoded[index]) + noiseGain * Float(noiseFrames[index])
                decoded[index] = Int16(clamping: Int(mixed.rounded()))
            }
        }
    }

    /// Expand: 10 ms of Opus packet-loss concealment, at full level for 50 ms, then fading
    /// linearly into comfort noise, which is all there is after 200 ms (libopus is no
    /// longer asked then; it resumes from its last state when a packet comes).
    mutating func expand() {
        let frames = Self.framesPerPull
        let startGain = Self.expandGain(expandFrames)
        expandFrames += frames
        let endGain = Self.expandGain(expandFrames)
        var concealed = false
        if startGain > 0 {
            do {
                let plc = try decoder.concealLoss(durationMs: 10, timestamp: .zero)
                plc.samples.withUnsafeBufferPointer { source in
                    _ = scratch.update(fromContentsOf: source.prefix(scratch.count))
                }
                concealed = plc.samples.count == scratch.count
            } catch {
                concealed = false
            }
        }
        if !concealed { scratch.update(repeating: 0) }
        if endGain < 1 {
            noise.generate(into: noiseScratch, channels: channels)
            for frame in 0..<frames {
                let gain = startGain + (endGain - startGain) * Float(frame + 1) / Float(frames)
                for channel in 0..<channels {
                    let index = frame * channels + channel
                    let mixed = gain * Float(scratch[index]) + (1 - gain) * Float(noiseScratch[index])
                    scratch[index] = Int16(clamping: Int(mixed.rounded()))
                }
            }
        }
        let silent = endGain == 0 && startGain == 0 || Self.rms(scratch) < Self.silentRMS
        append(scratch, kind: silent ? .silentConcealed : .concealed)
        concealedAhead += Int64(frames)
        realGain = endGain
    }

    /// 10 ms of comfort noise, faded in over 5 ms when it follows real audio.
    mutating func comfortNoise(kind: AudioJitterBufferSampleQueue.Kind) {
        noise.generate(into: scratch, channels: channels)
        if realGain > 0 {
            for frame in 0..<Self.mergeFrames {
                let gain = Float(frame + 1) / Float(Self.mergeFrames + 1)
                for channel in 0..<channels {
                    let index = frame * channels + channel
                    scratch[index] = Int16((Float(scratch[index]) * gain).rounded())
                }
            }
        }
        append(scratch, kind: kind)
        concealedAhead += Int64(Self.framesPerPull)
        expandFrames = 0
        realGain = 0
    }

    /// 10 ms of digital silence, before anything has played.
    mutating func silence() {
        scratch.update(repeating: 0)
        append(scratch, kind: .silence)
    }

    private mutating func append(_ samples: UnsafeMutableBufferPointer<Int16>, kind: AudioJitterBufferSampleQueue.Kind) {
        let target = queue.append(frames: samples.count / channels, kind: kind, arrival: .zero)
        _ = target.update(fromContentsOf: samples.prefix(target.count))
    }

    static func expandGain(_ frames: Int) -> Float {
        if frames <= expandFadeStart { return 1 }
        if frames >= expandFadeEnd { return 0 }
        return 1 - Float(frames - expandFadeStart) / Float(expandFadeEnd - expandFadeStart)
    }

    static func rms(_ samples: UnsafeMutableBufferPointer<Int16>) -> Float {
        guard !samples.isEmpty else { return 0 }
        var sum: Float = 0
        for sample in samples { sum += Float(sample) * Float(sample) }
        return (sum / Float(samples.count)).squareRoot()
    }
}
