public import ConferMedia

extension AudioMixer {
    /// One participant's audio in one step.
    public struct ParticipantLevel: Hashable, Sendable {
        /// Who.
        public let participant: Participant
        /// RFC 6464 level of its audio this step, after gain and mute: 0 loudest … 127 silence.
        public let level: UInt8
        /// The level smoothed for meters (fast rise, 200 ms fall; see ``AudioLevelMeter``).
        public let smoothedLevel: UInt8
        /// Whether the ``SpeakingDetector`` holds it as speaking.
        public let isSpeaking: Bool
        /// Whether its audio is in the mix this step (it gets a mix of its own).
        public let contributes: Bool
    }

    /// What one ``AudioMixer/mix(at:)`` step produced, besides the audio itself.
    ///
    /// The arrays share storage with the mixer: drop the result before the next step to
    /// keep the mixer allocation-free (keeping it is safe, but costs that step a copy).
    public struct MixResult: Sendable {
        /// The start of the step (stamped on every output frame).
        public let timestamp: Timestamp
        /// RFC 6464 level of the shared mix after limiting.
        public let mixLevel: UInt8
        /// The shared mix's level smoothed for meters.
        public let smoothedMixLevel: UInt8
        /// The shared mix's limiter gain at the end of the step: 1 when it is not limiting.
        public let limiterGain: Float
        /// Every participant's level and state, in participant order.
        public let participants: [ParticipantLevel]
        /// The contributors: listeners that need a mix of their own this step (and an
        /// encoder of their own); everyone else hears ``AudioMixer/sharedMix``.
        public let ownMixListeners: [Participant]
        /// Who started or stopped speaking in this step.
        public let speakingChanges: [SpeakingDetector<Participant>.Change]
        /// The active speaker after this step.
        public let activeSpeaker: Participant?
        /// Whether ``activeSpeaker`` changed in this step.
        public let activeSpeakerChanged: Bool
    }
}
