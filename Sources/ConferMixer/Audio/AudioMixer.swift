public import ConferMedia

/// The host's audio mixer: everyone hears everyone but themselves.
///
/// The host pushes each participant's decoded audio (``push(_:from:)``, 10 ms or any
/// length, mono or stereo) and pulls exactly 10 ms per ``mix(at:)`` step, as NetEQ hands
/// audio out. Each participant's audio waits in a small bounded ring (overflow drops the
/// oldest and is counted); one that pushed nothing contributes silence — nobody waits for
/// anybody.
///
/// **Who gets which mix.** Each step, a participant *contributes* when its gate is open:
/// its level this step reaches the on-threshold of ``SpeakingSettings`` (−50 dBov by
/// default, staying open down to −55 dBov), or the ``SpeakingDetector`` holds it as
/// speaking (so word tails and breaths pass). Audio of a closed gate is left out of every
/// mix. The *shared mix* is the sum of all contributors; a listener that does not
/// contribute hears exactly the shared mix (its own share of it is zero), so the host
/// encodes it once for all of them. Only contributors — in practice the few people
/// talking — get a mix of their own (the shared sum minus their contribution) and cost
/// an encoder of their own: see ``MixResult/ownMixListeners`` and ``needsOwnMix(_:)``.
/// A listener that is not a participant (a recorder) hears the shared mix.
///
/// **Signal path.** Per participant: ring → gain and mute (ramped over one step so
/// changes do not click) → level meter → gate. Contributions are summed in Int32, exactly;
/// each output then goes through its own ``Limiter``-style peak limiter (instant attack,
/// 50 ms release, −1 dBFS by default) and saturates to Int16 as a last safety, so sums of
/// loud voices never wrap and are not hard-clipped. A listener who starts contributing
/// takes over the shared limiter's state, so switching streams does not jump in level.
///
/// **Allocation and lifetimes.** Every buffer is allocated when the mixer is made or a
/// participant is added; ``mix(at:)`` allocates nothing in steady state. It overwrites its
/// output frames and lists in place, so the frames from ``mix(for:)`` / ``sharedMix`` and
/// the arrays of a ``MixResult`` are valid for the step that made them: a caller that
/// keeps one past the next ``mix(at:)`` still sees its values (they are copy-on-write),
/// but that step then has to allocate a fresh buffer. ``withMix(for:_:)`` lends the
/// samples without any copy.
///
/// The mixer is a value with mutating methods and no locks or clock: an actor (or one
/// task) owns it and drives it with the media time of each step.
public struct AudioMixer<Participant: Hashable & Sendable>: Sendable {
    /// Sample frames per step: 10 ms at 48 kHz.
    public static var stepFrames: Int { conferSampleRate / 100 }
    /// The length of one step.
    public static var stepDuration: TimeDelta { .milliseconds(10) }

    /// The configuration in force, clamped to its valid ranges.
    public let configuration: AudioMixerConfiguration
    /// Counters since the mixer was made.
    public internal(set) var statistics = AudioMixerStatistics()

    var slots: [AudioMixerSlot] = []
    /// Owns the participant list and order; its indices are the indices of `slots`.
    var detector: SpeakingDetector<Participant>
    var accumulator: [Int32]
    var scratch: [Int32]
    var shared: AudioFrame
    var sharedLimiter: Limiter
    var mixMeter = AudioLevelMeter()
    var ownListeners: [Participant] = []
    var sharedListeners: [Participant] = []
    var levels: [ParticipantLevel] = []

    /// A mixer with `configuration` (clamped to its documented ranges) and no participants.
    public init(configuration: AudioMixerConfiguration = AudioMixerConfiguration()) {
        let configuration = configuration.clamped
        self.configuration = configuration
        detector = SpeakingDetector(settings: configuration.speaking)
        let samples = Self.stepFrames * configuration.outputChannels.count
        accumulator = [Int32](repeating: 0, count: samples)
        scratch = [Int32](repeating: 0, count: samples)
        shared = AudioFrame(silenceOf: Self.stepFrames, channels: configuration.outputChannels.count)
        sharedLimiter = Limiter(threshold: configuration.limiterThreshold, release: configuration.limiterRelease)
        let n = configuration.maximumParticipants
        slots.reserveCapacity(n)
        ownListeners.reserveCapacity(n)
        sharedListeners.reserveCapacity(n)
        levels.reserveCapacity(n)
    }

    // MARK: Participants

    /// The participants, in the order they were added.
    public var participants: [Participant] { detector.participants }

    /// Adds `participant` at unity gain, unmuted, with nothing queued. Allocates its buffers.
    public mutating func add(_ participant: Participant) throws(AudioMixerError) {
        guard detector.index(of: participant) == nil else {
            throw .participantAlreadyAdded(String(describing: participant))
        }
        guard slots.count < configuration.maximumParticipants else {
            throw .tooManyParticipants(limit: configuration.maximumParticipants)
        }
        detector.add(participant)
        slots.append(AudioMixerSlot(configuration: configuration, stepFrames: Self.stepFrames))
    }

    /// Removes `participant` and drops its queued audio; from the next step it is in no mix,
    /// and from now on it is in no listener list (as a listener it would hear the shared mix).
    public mutating func remove(_ participant: Participant) throws(AudioMixerError) {
        let i = try index(of: participant)
        slots.remove(at: i)
        detector.remove(participant)
        ownListeners.removeAll { $0 == participant }
        sharedListeners.removeAll { $0 == participant }
        levels.removeAll { $0.participant == participant }
    }

    /// Sets `participant`'s linear gain (0…``AudioMixerConfiguration/maximumGain``; 1 is
    /// unchanged, 0.5 about −6 dB). The change ramps in over the next step.
    public mutating func setGain(_ gain: Double, for participant: Participant) throws(AudioMixerError) {
        let i = try index(of: participant)
        guard gain.isFinite, gain >= 0, gain <= configuration.maximumGain else { throw .invalidGain(gain) }
        slots[i].gain = Float(gain)
    }

    /// Sets `participant`'s gain in decibels (0 dB unchanged, −6 dB about half amplitude,
    /// `-.infinity` silent), up to the configured maximum.
    public mutating func setGain(decibels: Double, for participant: Participant) throws(AudioMixerError) {
        guard !decibels.isNaN else { throw .invalidGain(decibels) }
        try setGain(decibels == -.infinity ? 0 : Math.powerOf10(decibels / 20), for: participant)
    }

    /// `participant`'s linear gain.
    public func gain(of participant: Participant) throws(AudioMixerError) -> Double {
        Double(slots[try index(of: participant)].gain)
    }

    /// Mutes or unmutes `participant` in every mix (its gain is kept); ramps over one step.
    /// Muted, its level reads silence, so it stops speaking once the hold has run out.
    public mutating func setMuted(_ muted: Bool, for participant: Participant) throws(AudioMixerError) {
        slots[try index(of: participant)].isMuted = muted
    }

    /// Whether `participant` is muted.
    public func isMuted(_ participant: Participant) throws(AudioMixerError) -> Bool {
        slots[try index(of: participant)].isMuted
    }

    /// Counters for `participant`'s input.
    public func statistics(for participant: Participant) throws(AudioMixerError) -> AudioMixerParticipantStatistics {
        slots[try index(of: participant)].statistics
    }

    /// Sample frames `participant` has queued ahead of the next step.
    public func queuedFrames(of participant: Participant) throws(AudioMixerError) -> Int {
        slots[try index(of: participant)].ring.queuedFrames
    }

    func index(of participant: Participant) throws(AudioMixerError) -> Int {
        guard let i = detector.index(of: participant) else { throw .unknownParticipant(String(describing: participant)) }
        return i
    }

    // MARK: Input

    /// Queues `frame` (any length, mono or stereo; its timestamp is not used — the host
    /// pushes audio in play order) from `participant`, converted to the output layout.
    /// Audio beyond ``AudioMixerConfiguration/bufferLimit`` drops the oldest, counted in
    /// ``AudioMixerParticipantStatistics/droppedFrames``. Allocates nothing.
    public mutating func push(_ frame: AudioFrame, from participant: Participant) throws(AudioMixerError) {
        let i = try index(of: participant)
        frame.samples.withUnsafeBufferPointer { slots[i].push($0, channels: frame.channels) }
    }

    /// Queues interleaved `samples` of `channels` (1 or 2) channels from `participant`, as
    /// ``push(_:from:)`` does, straight from a decoder's buffer.
    public mutating func push(samples: UnsafeBufferPointer<Int16>, channels: Int,
                              from participant: Participant) throws(AudioMixerError) {
        let i = try index(of: participant)
        guard channels == 1 || channels == 2 else { throw .invalidChannelCount(channels) }
        guard samples.count % channels == 0 else {
            throw .partialSampleFrame(sampleCount: samples.count, channels: channels)
        }
        slots[i].push(samples, channels: channels)
    }
}
