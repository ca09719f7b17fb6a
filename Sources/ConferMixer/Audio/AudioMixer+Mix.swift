public import ConferMedia

extension AudioMixer {
    /// Mixes one 10 ms step starting at `time` (media time; call with increasing times,
    /// normally 10 ms apart): takes 10 ms from every participant (silence where missing),
    /// measures levels, updates speaking state and the active speaker, and renders the
    /// shared mix and one mix-minus per contributor. Allocates nothing in steady state.
    public mutating func mix(at time: Timestamp) -> MixResult {
        let channels = configuration.outputChannels.count

        // Levels first: the gate of this step depends on this step's audio.
        for i in slots.indices {
            let meanSquare = slots[i].pull()
            detector.record(level: slots[i].meter.update(meanSquare: meanSquare), at: i)
        }
        detector.finishStep(at: time, duration: Self.stepDuration)

        ownListeners.removeAll(keepingCapacity: true)
        sharedListeners.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        accumulator.withUnsafeMutableBufferPointer { sum in
            for i in 0..<sum.count { sum[i] = 0 }
            for i in slots.indices {
                let state = detector.states[i]
                let contributes = state.isVoiced || state.isSpeaking
                let participant = detector.participants[i]
                if contributes {
                    slots[i].contribution.withUnsafeBufferPointer { own in
                        for j in 0..<sum.count { sum[j] += own[j] }
                    }
                    ownListeners.append(participant)
                    slots[i].statistics.contributingSteps += 1
                } else {
                    sharedListeners.append(participant)
                }
                levels.append(ParticipantLevel(participant: participant, level: slots[i].meter.level,
                                               smoothedLevel: slots[i].meter.smoothedLevel,
                                               isSpeaking: state.isSpeaking, contributes: contributes))
            }
        }

        let limiterBefore = sharedLimiter
        accumulator.withUnsafeBufferPointer { sum in
            shared.samples.withUnsafeMutableBufferPointer { sharedLimiter.process(sum, channels: channels, into: $0) }
        }
        shared.timestamp = time
        shared.samples.withUnsafeBufferPointer { _ = mixMeter.update($0) }
        if sharedLimiter.gain < 1 { statistics.limitedSteps += 1 }

        accumulator.withUnsafeBufferPointer { sum in
            scratch.withUnsafeMutableBufferPointer { scratch in
                for i in slots.indices {
                    let contributes = levels[i].contributes
                    if contributes {
                        // A listener moving off the shared mix keeps its limiter state.
                        if !slots[i].contributes { slots[i].limiter = limiterBefore }
                        slots[i].renderOwnMix(accumulator: sum, scratch: scratch, channels: channels, time: time)
                    }
                    slots[i].contributes = contributes
                }
            }
        }
        statistics.steps += 1
        statistics.ownMixesRendered += ownListeners.count

        return MixResult(timestamp: time, mixLevel: mixMeter.level, smoothedMixLevel: mixMeter.smoothedLevel,
                         limiterGain: sharedLimiter.gain, participants: levels, ownMixListeners: ownListeners,
                         speakingChanges: detector.changes, activeSpeaker: detector.activeSpeaker,
                         activeSpeakerChanged: detector.activeSpeakerChanged)
    }
}
