import ConferMedia

/// Everything the mixer keeps for one participant, allocated when it is added and reused
/// every step: its input ring, its gained contribution for the step, its own mix-minus
/// output and that output's limiter.
struct AudioMixerSlot: Sendable {
    var ring: AudioMixerRing
    /// This step's audio after gain and mute, in the output layout; Int32 so gains above
    /// unity cannot wrap and the sums of others come out exact.
    var contribution: [Int32]
    /// The mix of everyone else, rendered only in steps where this participant contributes.
    var ownMix: AudioFrame
    var limiter: Limiter
    var meter = AudioLevelMeter()
    /// The linear gain asked for.
    var gain: Float = 1
    var isMuted = false
    /// The gain applied at the end of the last step: a new gain ramps from it over one step,
    /// so a gain change or mute does not click.
    private var appliedGain: Float = 1
    /// Whether the participant's gate was open in the last step.
    var contributes = false
    var statistics = AudioMixerParticipantStatistics()

    init(configuration: AudioMixerConfiguration, stepFrames: Int) {
        let channels = configuration.outputChannels.count
        let capacityFrames = Int(configuration.bufferLimit.microseconds * Int64(conferSampleRate) / 1_000_000)
        ring = AudioMixerRing(capacityFrames: max(stepFrames, capacityFrames), channels: channels)
        contribution = [Int32](repeating: 0, count: stepFrames * channels)
        ownMix = AudioFrame(silenceOf: stepFrames, channels: channels)
        limiter = Limiter(threshold: configuration.limiterThreshold, release: configuration.limiterRelease)
    }

    /// Queues pushed samples, counting what was pushed and dropped.
    mutating func push(_ samples: UnsafeBufferPointer<Int16>, channels: Int) {
        statistics.pushedFrames += samples.count / channels
        statistics.droppedFrames += ring.write(samples, inputChannels: channels)
    }

    /// Takes the step's audio from the ring into ``contribution`` (silence for whatever is
    /// missing), applies gain and mute, and returns its mean square in full-scale units.
    mutating func pull() -> Double {
        let target: Float = isMuted ? 0 : gain
        let from = appliedGain
        appliedGain = target
        let channels = ring.channels
        return contribution.withUnsafeMutableBufferPointer { out -> Double in
            let n = out.count
            let got = ring.read(into: out)
            if got < n {
                statistics.starvedSteps += 1
                for i in got..<n { out[i] = 0 }
            }
            if from == target {
                if target == 0 {
                    for i in 0..<n { out[i] = 0 }
                    return 0
                }
                if target != 1 {
                    for i in 0..<n { out[i] = Self.scale(out[i], by: target) }
                }
            } else {
                // Linear ramp over the step, reaching the new gain on its last frame.
                let frames = n / channels
                let step = (target - from) / Float(frames)
                for f in 0..<frames {
                    let g = from + step * Float(f + 1)
                    for c in 0..<channels { out[f * channels + c] = Self.scale(out[f * channels + c], by: g) }
                }
            }
            var sum: Int64 = 0
            for i in 0..<n { sum += Int64(out[i]) * Int64(out[i]) }
            return Double(sum) / (Double(n) * AudioAnalysis.fullScale * AudioAnalysis.fullScale)
        }
    }

    /// `x` × `gain`, rounded: |x| ≤ 32 768 and gain ≤ 16 keep it inside the rounding's range.
    @inline(__always)
    private static func scale(_ x: Int32, by gain: Float) -> Int32 {
        LimiterMath.roundedToInt32(Float(x) * gain)
    }

    /// Renders ``ownMix``: everyone in `accumulator` but this participant, limited.
    mutating func renderOwnMix(accumulator: UnsafeBufferPointer<Int32>, scratch: UnsafeMutableBufferPointer<Int32>,
                               channels: Int, time: Timestamp) {
        contribution.withUnsafeBufferPointer { own in
            for i in 0..<own.count { scratch[i] = accumulator[i] - own[i] }
        }
        let others = UnsafeBufferPointer(rebasing: scratch[0..<contribution.count])
        ownMix.samples.withUnsafeMutableBufferPointer { limiter.process(others, channels: channels, into: $0) }
        ownMix.timestamp = time
    }

    /// The addresses and capacities of every buffer, to check none moves (tests).
    var storageFingerprint: [Int] {
        ring.storageFingerprint
            + contribution.withUnsafeBufferPointer { [Int(bitPattern: $0.baseAddress), contribution.capacity] }
            + ownMix.samples.withUnsafeBufferPointer { [Int(bitPattern: $0.baseAddress), ownMix.samples.capacity] }
    }
}
