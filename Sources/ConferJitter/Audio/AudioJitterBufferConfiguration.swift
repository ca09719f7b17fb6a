public import ConferMedia

/// How an ``AudioJitterBuffer`` trades delay against robustness.
///
/// Out-of-range values are clamped when the buffer is made (see ``normalized()``), so a
/// configuration read from a file can never make the buffer allocate without bound.
public struct AudioJitterBufferConfiguration: Sendable, Hashable, Codable {
    /// Output channel count, 1 or 2 (Opus packets of either kind are up- or down-mixed).
    public var channels: Int
    /// The least target delay, whatever the network does.
    public var minimumDelay: TimeDelta
    /// The most target delay: jitter beyond it is played as loss rather than waited for.
    public var maximumDelay: TimeDelta
    /// The share of packets the target delay should be in time for (0.95: the 95th
    /// percentile of relative arrival delay).
    public var delayQuantile: Double
    /// How fast the delay histogram forgets: the age, in packet time, at which an arrival
    /// weighs half as much as a new one.
    public var delayHistoryHalfLife: TimeDelta
    /// The window in which the fastest packet defines zero relative delay (NetEQ uses 2 s).
    public var delayWindow: TimeDelta
    /// The most audio held in packets; more is flushed down to the target delay.
    public var maximumBufferedDuration: TimeDelta
    /// The most packets held; more are flushed down to the target delay.
    public var maximumPackets: Int
    /// The largest payload accepted, in bytes; longer ones are counted as undecodable.
    public var maximumPayloadSize: Int
    /// The quietest comfort noise, in dBov: silence is never played as digital zeros.
    public var comfortNoiseFloor: Double
    /// The loudest comfort noise, in dBov, however loud the background estimate is.
    public var comfortNoiseCeiling: Double
    /// Seed of the comfort-noise generator, so runs are repeatable.
    public var seed: UInt64

    /// A configuration with NetEQ-like defaults: 20–500 ms target delay at the 95th
    /// percentile, 2 s half-life, 2 s of storage.
    public init(channels: Int = 1, minimumDelay: TimeDelta = .milliseconds(20), maximumDelay: TimeDelta = .milliseconds(500),
                delayQuantile: Double = 0.95, delayHistoryHalfLife: TimeDelta = .seconds(2),
                delayWindow: TimeDelta = .seconds(2), maximumBufferedDuration: TimeDelta = .seconds(2),
                maximumPackets: Int = 200, maximumPayloadSize: Int = 1500,
                comfortNoiseFloor: Double = -70, comfortNoiseCeiling: Double = -40, seed: UInt64 = 0x5EED) {
        self.channels = channels
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.delayQuantile = delayQuantile
        self.delayHistoryHalfLife = delayHistoryHalfLife
        self.delayWindow = delayWindow
        self.maximumBufferedDuration = maximumBufferedDuration
        self.maximumPackets = maximumPackets
        self.maximumPayloadSize = maximumPayloadSize
        self.comfortNoiseFloor = comfortNoiseFloor
        self.comfortNoiseCeiling = comfortNoiseCeiling
        self.seed = seed
    }

    /// This configuration with every value brought into the range the buffer supports:
    /// delays 0…10 s with minimum ≤ maximum ≤ stored duration, quantile 0.5…0.999,
    /// half-life and window 10 ms…60 s, 8…4096 packets, payloads 16…65 535 bytes, comfort
    /// noise −120…0 dBov with floor ≤ ceiling. The channel count is left for the decoder to check.
    public func normalized() -> AudioJitterBufferConfiguration {
        func clamp(_ value: TimeDelta, _ low: TimeDelta, _ high: TimeDelta) -> TimeDelta { min(max(value, low), high) }
        var result = self
        result.maximumBufferedDuration = clamp(maximumBufferedDuration, .milliseconds(100), .seconds(10))
        result.maximumDelay = clamp(maximumDelay, .milliseconds(20), result.maximumBufferedDuration)
        result.minimumDelay = clamp(minimumDelay, .zero, result.maximumDelay)
        result.delayQuantile = delayQuantile.isNaN ? 0.95 : min(max(delayQuantile, 0.5), 0.999)
        result.delayHistoryHalfLife = clamp(delayHistoryHalfLife, .milliseconds(10), .seconds(60))
        result.delayWindow = clamp(delayWindow, .milliseconds(10), .seconds(60))
        result.maximumPackets = min(max(maximumPackets, 8), 4096)
        result.maximumPayloadSize = min(max(maximumPayloadSize, 16), 65_535)
        let floor = comfortNoiseFloor.isNaN ? -70 : min(max(comfortNoiseFloor, -120), 0)
        let ceiling = comfortNoiseCeiling.isNaN ? -40 : min(max(comfortNoiseCeiling, -120), 0)
        result.comfortNoiseFloor = min(floor, ceiling)
        result.comfortNoiseCeiling = max(floor, ceiling)
        return result
    }
}
