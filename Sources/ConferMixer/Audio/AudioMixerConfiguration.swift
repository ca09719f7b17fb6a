public import ConferMedia

/// How an ``AudioMixer`` is set up. Every value has a default that suits a meeting host;
/// out-of-range values are clamped by the mixer (documented per property), never trapped on.
public struct AudioMixerConfiguration: Hashable, Sendable, Codable {
    /// The channel layout of every mix the mixer produces.
    public enum OutputChannels: Int, Hashable, Sendable, Codable {
        /// One channel: stereo participants are averaged down.
        case mono = 1
        /// Two channels: mono participants are duplicated into both.
        case stereo = 2

        /// 1 or 2.
        public var count: Int { rawValue }
    }

    /// The channel layout of every mix. Default mono: meeting speech gains nothing from
    /// stereo, and mono halves the mixing and encoding work.
    public var outputChannels: OutputChannels
    /// The most participants the mixer accepts, 1…1024. Bounds the work per step and keeps
    /// Int32 sums far from overflow (1024 × 32 768 × ``maximumGain`` ≪ 2³¹).
    public var maximumParticipants: Int
    /// How much audio one participant may have queued, 10 ms…1 s; older audio is dropped
    /// and counted when it pushes more. 200 ms holds the longest Opus frame (120 ms) plus
    /// slack; a host that pushes 10 ms per step never comes near it.
    public var bufferLimit: TimeDelta
    /// The peak the limiter holds every mix under, 1 024…32 767. Default 29 205 (−1 dBFS):
    /// a little headroom so a lossy encoder's overshoot does not clip at the far end.
    public var limiterThreshold: Int16
    /// How quickly the limiter's gain returns to unity after a loud passage (the time
    /// constant of its exponential release), 1 ms…1 s. 50 ms: slow enough that the gain
    /// does not follow each cycle of a low voice (which would distort it), fast enough that
    /// the room does not "duck" audibly after someone laughs into the microphone.
    public var limiterRelease: TimeDelta
    /// The largest linear gain a participant may be given, 1…16 (+24 dB).
    public var maximumGain: Double
    /// When a participant counts as speaking, when it gates in, and how the active speaker
    /// is chosen.
    public var speaking: SpeakingSettings

    /// A configuration with these values; see each property for its default and reasons.
    public init(outputChannels: OutputChannels = .mono, maximumParticipants: Int = 64,
                bufferLimit: TimeDelta = .milliseconds(200), limiterThreshold: Int16 = 29_205,
                limiterRelease: TimeDelta = .milliseconds(50), maximumGain: Double = 16,
                speaking: SpeakingSettings = SpeakingSettings()) {
        self.outputChannels = outputChannels
        self.maximumParticipants = maximumParticipants
        self.bufferLimit = bufferLimit
        self.limiterThreshold = limiterThreshold
        self.limiterRelease = limiterRelease
        self.maximumGain = maximumGain
        self.speaking = speaking
    }

    /// This configuration with every value inside its documented range.
    var clamped: AudioMixerConfiguration {
        var c = self
        c.maximumParticipants = min(1024, max(1, maximumParticipants))
        c.bufferLimit = min(.seconds(1), max(.milliseconds(10), bufferLimit))
        c.limiterThreshold = max(1024, limiterThreshold)
        c.limiterRelease = min(.seconds(1), max(.milliseconds(1), limiterRelease))
        c.maximumGain = maximumGain.isFinite ? min(16, max(1, maximumGain)) : 16
        c.speaking = speaking.clamped
        return c
    }
}
