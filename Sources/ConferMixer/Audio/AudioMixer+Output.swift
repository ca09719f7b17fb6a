public import ConferMedia

extension AudioMixer {
    /// The mix of every contributor from the last step: what every listener that does not
    /// contribute hears. Valid until the next ``mix(at:)`` (see the type's lifetimes note).
    public var sharedMix: AudioFrame { shared }

    /// What `listener` hears from the last step: its own mix-minus when it contributed,
    /// the shared mix otherwise (also for a listener that is not a participant). Shares
    /// the mixer's buffer: no copy unless kept past the next ``mix(at:)``.
    public func mix(for listener: Participant) -> AudioFrame {
        if let i = detector.index(of: listener), slots[i].contributes { return slots[i].ownMix }
        return shared
    }

    /// Lends `body` the samples `listener` hears from the last step (interleaved, in the
    /// output layout), without copying; the pointer is valid only inside `body`.
    public func withMix<Result, Failure: Error>(
        for listener: Participant, _ body: (UnsafeBufferPointer<Int16>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if let i = detector.index(of: listener), slots[i].contributes {
            return try slots[i].ownMix.samples.withUnsafeBufferPointer(body)
        }
        return try shared.samples.withUnsafeBufferPointer(body)
    }

    /// Whether `listener` needs a mix (and an encoder) of its own: it contributed to the
    /// last step. False for everyone else, who share ``sharedMix``.
    public func needsOwnMix(_ listener: Participant) -> Bool {
        detector.index(of: listener).map { slots[$0].contributes } ?? false
    }

    /// The participants that hear the shared mix after the last step, in participant order.
    /// Reused storage: keeping a copy past the next step costs that step an allocation.
    public var sharedMixListeners: [Participant] { sharedListeners }

    /// The participants that need their own mix after the last step, in participant order.
    public var ownMixListeners: [Participant] { ownListeners }

    // MARK: State

    /// Whether `participant` is speaking (false for one not present).
    public func isSpeaking(_ participant: Participant) -> Bool { detector.isSpeaking(participant) }

    /// The participant an active-speaker layout should show; see ``SpeakingDetector``.
    public var activeSpeaker: Participant? { detector.activeSpeaker }

    /// `participant`'s meter after the last step: its level and smoothed level.
    public func level(of participant: Participant) throws(AudioMixerError) -> AudioLevelMeter {
        slots[try index(of: participant)].meter
    }

    /// The shared mix's meter after the last step.
    public var mixLevel: AudioLevelMeter { mixMeter }

    /// The speaking detector's settings in force.
    public var speakingSettings: SpeakingSettings { detector.settings }

    /// The addresses and capacities of every buffer the mixer owns, to check that steps
    /// allocate nothing once participants are added (tests).
    var storageFingerprint: [Int] {
        func of<T>(_ a: [T]) -> [Int] { a.withUnsafeBufferPointer { [Int(bitPattern: $0.baseAddress), a.capacity] } }
        var result = of(slots) + of(accumulator) + of(scratch) + of(shared.samples) + of(ownListeners)
            + of(sharedListeners) + of(levels) + of(detector.changes) + of(detector.states)
        for slot in slots { result += slot.storageFingerprint }
        return result
    }
}

extension AudioMixer: CustomStringConvertible {
    /// A one-line summary (the buffers are too long to print usefully).
    public var description: String {
        "AudioMixer(\(slots.count) participants, \(configuration.outputChannels), own mixes for \(ownListeners), "
            + "active speaker \(activeSpeaker.map { String(describing: $0) } ?? "none"), \(statistics.steps) steps)"
    }
}
