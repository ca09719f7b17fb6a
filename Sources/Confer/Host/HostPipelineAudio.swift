import ConferMedia
import ConferCodecs
import ConferMixer

/// The host's audio: every 10 ms, each participant's decoded audio into the mixer, then
/// each listener's mix into an Opus encoder.
///
/// **Only speakers cost an encoder.** The mixer renders one shared mix of everyone
/// contributing (speaking) this step; every listener that does not contribute hears
/// exactly that mix, so one shared encoder encodes it once and its packets go to all of
/// them. A contributor must not hear itself, so it gets its own mix-minus and an encoder
/// of its own, taken from a pool (created on demand and kept for reuse, so a steady
/// meeting allocates none) and given back once it stops contributing.
///
/// **Frames span steps.** An Opus frame (20 ms by default) is two mixer steps. A listener
/// keeps its own encoder for the whole frame if it contributed in any step of it; one that
/// starts contributing mid-frame takes over the shared frame so far, which is already its
/// mix-minus (its share of the shared mix was zero while it did not contribute). So every
/// listener hears a continuous stream in which its own voice never appears.
///
/// Each listener's packets go out on its own RTP writer (``HostPipelineDownlink``), so
/// moving between the shared encoder and its own does not break its sequence numbers.
final class HostPipelineAudio {
    var mixer: AudioMixer<ParticipantID>
    private let settings: AudioEncoderSettings
    private let stepsPerFrame: Int
    private let audioTimeout: TimeDelta
    /// The step of the frame being filled that comes next.
    private var step = 0
    /// The media time of the frame being filled (its first step).
    private var frameStart = Timestamp.zero
    private let shared: HostPipelineAudioEncoder
    /// Own-mix encoders not in use.
    private var pool: [HostPipelineAudioEncoder] = []

    /// Opus encoders made, the shared one included.
    private(set) var encodersCreated = 1
    /// Encoders that encoded the last frame: the shared one (if anyone heard it) and one per contributor.
    private(set) var encodersInUse = 0
    /// The most encoders any frame used.
    private(set) var maximumEncodersInUse = 0
    /// Opus frames encoded (one shared encode serves every non-contributing listener).
    private(set) var framesEncoded = 0
    /// Mixer steps skipped because the host was polled too late to run them.
    var stepsSkipped = 0
    /// Told every frame of the whole mix (every contributor, no one left out) as encoded
    /// once: what a listener outside the meeting hears.
    var mixHandler: ((EncodedFrame) -> Void)?

    init(configuration: HostPipelineConfiguration) throws {
        guard OpusEncoder.supportedFrameDurations.contains(configuration.audioFrameDuration) else {
            throw HostPipelineError(.invalidConfiguration, "an audio frame of \(configuration.audioFrameDuration) ms is not 10, 20, 40 or 60")
        }
        mixer = AudioMixer(configuration: configuration.mixer)
        settings = AudioEncoderSettings(channels: mixer.configuration.outputChannels.count, bitrate: configuration.audioBitrate,
                                        frameDurationMs: configuration.audioFrameDuration)
        stepsPerFrame = configuration.audioFrameDuration / 10
        audioTimeout = configuration.audioTimeout
        shared = try HostPipelineAudioEncoder(settings: settings, stepFrames: AudioMixer<ParticipantID>.stepFrames)
    }

    /// Mixes the 10 ms step starting at `time` from what each of `participants` sends, and
    /// when it completes a frame, encodes and sends each listener's packet at `now`.
    /// Returns whether the active speaker changed.
    func step(at time: Timestamp, participants: [HostPipelineParticipant], now: Timestamp) throws -> Bool {
        for participant in participants where participant.sendsAudio {
            participant.receive.pullAudio(at: time, into: &participant.audioInput)
            // The receive chain conceals a gap for as long as it lasts, ending in noise at the
            // level it estimated; a participant that stopped sending is mixed as silence
            // instead, so it neither raises everyone's noise floor nor holds the floor.
            guard let last = participant.receive.audio?.lastArrival, time - last <= audioTimeout else { continue }
            // Every participant was added to the mixer with its pipeline and its frames are
            // mono or stereo (the jitter buffer's configuration): this cannot fail.
            try? mixer.push(participant.audioInput, from: participant.id)
        }
        let speakerChanged = mixer.mix(at: time).activeSpeakerChanged
        if step == 0 { frameStart = time }
        let index = step
        mixer.sharedMix.samples.withUnsafeBufferPointer { shared.write($0, step: index) }
        for participant in participants {
            if participant.ownEncoder == nil, mixer.needsOwnMix(participant.id) {
                let encoder = try takeEncoder()
                encoder.copySteps(index, from: shared)
                participant.ownEncoder = encoder
            }
            if let own = participant.ownEncoder {
                mixer.withMix(for: participant.id) { own.write($0, step: index) }
            }
        }
        step += 1
        if step == stepsPerFrame {
            step = 0
            try finishFrame(participants: participants, now: now)
        }
        return speakerChanged
    }

    /// Encodes the completed frame once for the shared listeners and once per contributor,
    /// sends each listener its packet, and pools the encoders of those who stopped contributing.
    private func finishFrame(participants: [HostPipelineParticipant], now: Timestamp) throws {
        var inUse = 0
        if mixHandler != nil || participants.contains(where: { $0.ownEncoder == nil }) {
            try shared.encode(at: frameStart)
            framesEncoded += 1
            inUse += 1
            mixHandler?(shared.encoded)
            for participant in participants where participant.ownEncoder == nil {
                participant.downlink.sendAudio(shared.encoded, captureTime: frameStart, at: now)
            }
        }
        for participant in participants {
            guard let own = participant.ownEncoder else { continue }
            try own.encode(at: frameStart)
            framesEncoded += 1
            inUse += 1
            participant.downlink.sendAudio(own.encoded, captureTime: frameStart, at: now)
            if !mixer.needsOwnMix(participant.id) { release(participant) }
        }
        encodersInUse = inUse
        maximumEncodersInUse = max(maximumEncodersInUse, inUse)
    }

    /// Starts the next frame afresh (after steps were skipped: what was gathered is stale).
    func restartFrame() { step = 0 }

    /// Gives `participant`'s own encoder back to the pool, if it has one.
    func release(_ participant: HostPipelineParticipant) {
        guard let encoder = participant.ownEncoder else { return }
        participant.ownEncoder = nil
        pool.append(encoder)
    }

    private func takeEncoder() throws -> HostPipelineAudioEncoder {
        if let encoder = pool.popLast() { return encoder }
        encodersCreated += 1
        return try HostPipelineAudioEncoder(settings: settings, stepFrames: AudioMixer<ParticipantID>.stepFrames)
    }
}
