import ConferMedia

/// One participant's voice activity, advanced once per step: voiced (this step's level
/// over the threshold, with hysteresis), speaking (voiced long enough, held through
/// pauses), and how far it has got towards taking the active speaker.
struct SpeakingState: Sendable {
    /// The level recorded for the step being evaluated; 127 (silence) when none was.
    var level: UInt8 = 127
    /// This step's level was over the on-threshold, or over the off-threshold while voiced.
    private(set) var isVoiced = false
    /// Voiced for the onset time, and not yet unvoiced for the hold time.
    private(set) var isSpeaking = false
    /// Net time this participant has been the loudest against the active speaker, in the
    /// current speaking period.
    var challenge = TimeDelta.zero
    /// Start of the current unbroken run of voiced steps.
    private var voicedSince: Timestamp?
    /// End of the last voiced step.
    private var lastVoicedEnd: Timestamp?

    /// Evaluates the recorded level as the step `[time, time + duration)`; returns whether
    /// ``isSpeaking`` changed.
    mutating func advance(at time: Timestamp, duration: TimeDelta, onLevel: UInt8, offLevel: UInt8,
                          onset: TimeDelta, hold: TimeDelta) -> Bool {
        isVoiced = level <= onLevel || (isVoiced && level <= offLevel)
        let end = time + duration
        let was = isSpeaking
        if isVoiced {
            let since = voicedSince ?? time
            voicedSince = since
            lastVoicedEnd = end
            if !isSpeaking, end - since >= onset { isSpeaking = true }
        } else {
            voicedSince = nil
            if isSpeaking, let last = lastVoicedEnd, end - last >= hold { isSpeaking = false }
        }
        // A participant entirely quiet has no claim on the active speaker left.
        if !isVoiced && !isSpeaking { challenge = .zero }
        return isSpeaking != was
    }
}
