public import ConferMedia

/// Decides from audio levels who is speaking and who the active speaker is, in injected
/// time: each step, record every participant's RFC 6464 level, then call
/// ``finishStep(at:duration:)`` with the step's start time.
///
/// A participant is *voiced* in a step when its level reaches ``SpeakingSettings/onThreshold``
/// (or stays above ``SpeakingSettings/offThreshold`` once voiced); it becomes *speaking*
/// after being voiced without a break for ``SpeakingSettings/onset`` and stops after being
/// unvoiced for ``SpeakingSettings/hold``. The *active speaker* (the one an active-speaker
/// layout shows) is the first participant to speak; after that, another participant takes
/// over only once it has been the loudest voiced participant for a net
/// ``SpeakingSettings/confirmation`` (``SpeakingSettings/handover`` once the active speaker
/// has stopped speaking): each step it is the loudest adds the step, each step the active
/// speaker holds its own (voiced and within ``SpeakingSettings/dominanceMargin`` of the
/// loudest) takes a step back, and falling quiet resets it. See ``SpeakingSettings`` for
/// the defaults and why.
///
/// The detector is plain value code: no clock, no allocation per step once its
/// participants are added. The mixer runs one for its participants; a host that only
/// forwards audio can run one on levels from RFC 6464 header extensions.
public struct SpeakingDetector<Participant: Hashable & Sendable>: Sendable {
    /// A participant started or stopped speaking.
    public struct Change: Hashable, Sendable {
        /// Who.
        public let participant: Participant
        /// Whether it is now speaking.
        public let isSpeaking: Bool
        /// The start of the step in which it changed.
        public let time: Timestamp

        /// A change of `participant` to `isSpeaking` at `time`.
        public init(participant: Participant, isSpeaking: Bool, time: Timestamp) {
            self.participant = participant
            self.isSpeaking = isSpeaking
            self.time = time
        }
    }

    /// The settings in force, clamped to their valid ranges.
    public let settings: SpeakingSettings
    /// The participants, in the order they were added.
    public private(set) var participants: [Participant] = []
    /// The participant shown as the active speaker; `nil` until someone first speaks, and
    /// after the active speaker is removed until someone speaks again.
    public private(set) var activeSpeaker: Participant?
    /// The speaking changes of the last step, in participant order. The array is reused:
    /// holding a copy past the next step makes that step allocate a new one.
    public private(set) var changes: [Change] = []
    /// Whether the last step changed ``activeSpeaker``, counting a removal of the active
    /// speaker since the step before.
    public private(set) var activeSpeakerChanged = false

    var states: [SpeakingState] = []
    private var indices: [Participant: Int] = [:]
    /// The active speaker was removed since the last step: the next step reports a change.
    private var removedActiveSpeaker = false
    private let onLevel: UInt8
    private let offLevel: UInt8

    /// A detector with `settings` (clamped to their valid ranges) and no participants.
    public init(settings: SpeakingSettings = SpeakingSettings()) {
        let settings = settings.clamped
        self.settings = settings
        // level ≤ L ⟺ −level ≥ threshold, for whole-dB levels.
        onLevel = UInt8((-settings.onThreshold).rounded(.down))
        offLevel = UInt8((-settings.offThreshold).rounded(.down))
    }

    // MARK: Participants

    /// Adds `participant`, not speaking; returns false (and changes nothing) if present.
    @discardableResult
    public mutating func add(_ participant: Participant) -> Bool {
        guard indices[participant] == nil else { return false }
        indices[participant] = participants.count
        participants.append(participant)
        states.append(SpeakingState())
        changes.reserveCapacity(participants.count)
        return true
    }

    /// Removes `participant`; returns false if it was not present. Removing the active
    /// speaker leaves no active speaker until someone speaks.
    @discardableResult
    public mutating func remove(_ participant: Participant) -> Bool {
        guard let index = indices.removeValue(forKey: participant) else { return false }
        participants.remove(at: index)
        states.remove(at: index)
        for i in index..<participants.count { indices[participants[i]] = i }
        if activeSpeaker == participant {
            activeSpeaker = nil
            removedActiveSpeaker = true
        }
        return true
    }

    /// The position of `participant` in ``participants``.
    func index(of participant: Participant) -> Int? { indices[participant] }

    /// Whether `participant` is speaking (false for one not present).
    public func isSpeaking(_ participant: Participant) -> Bool {
        indices[participant].map { states[$0].isSpeaking } ?? false
    }

    // MARK: Steps

    /// Records `participant`'s RFC 6464 level (0 loudest … 127 silence) for the current
    /// step; a participant with no level recorded counts as silent. Returns false if the
    /// participant is not present.
    @discardableResult
    public mutating func record(level: UInt8, for participant: Participant) -> Bool {
        guard let i = indices[participant] else { return false }
        states[i].level = min(level, 127)
        return true
    }

    /// Records the level of the participant at `index` in ``participants``.
    mutating func record(level: UInt8, at index: Int) { states[index].level = min(level, 127) }

    /// Evaluates the recorded levels as the step `[time, time + duration)`: updates who is
    /// speaking (``changes``) and the active speaker, then clears the levels for the next
    /// step. Call with increasing times.
    public mutating func finishStep(at time: Timestamp, duration: TimeDelta = .milliseconds(10)) {
        changes.removeAll(keepingCapacity: true)
        activeSpeakerChanged = removedActiveSpeaker
        removedActiveSpeaker = false
        for i in states.indices {
            let changed = states[i].advance(at: time, duration: duration, onLevel: onLevel, offLevel: offLevel,
                                            onset: settings.onset, hold: settings.hold)
            if changed { changes.append(Change(participant: participants[i], isSpeaking: states[i].isSpeaking, time: time)) }
        }
        selectActiveSpeaker(duration: duration)
        for i in states.indices { states[i].level = 127 }
    }

    private mutating func selectActiveSpeaker(duration: TimeDelta) {
        guard let active = activeSpeaker.flatMap({ indices[$0] }) else {
            // Nobody shown yet: the loudest speaking participant takes it at once.
            var best: Int?
            for i in states.indices where states[i].isSpeaking {
                if best.map({ states[i].level < states[$0].level }) ?? true { best = i }
            }
            if let best { switchActiveSpeaker(to: best) }
            return
        }
        // The loudest voiced participant wins the step, but the active speaker keeps it
        // while within the margin.
        var loudest: Int?
        for i in states.indices where states[i].isVoiced {
            if loudest.map({ states[i].level < states[$0].level }) ?? true { loudest = i }
        }
        var winner = loudest
        if let l = loudest, l != active, states[active].isVoiced,
           Double(states[active].level) - Double(states[l].level) < settings.dominanceMargin {
            winner = active
        }
        guard let winner else { return }
        let needed = states[active].isSpeaking ? settings.confirmation : settings.handover
        var takeover: Int?
        for i in states.indices where i != active {
            if i == winner {
                states[i].challenge = states[i].challenge + duration
                if states[i].isSpeaking, states[i].challenge >= needed { takeover = i }
            } else if winner == active {
                states[i].challenge = max(.zero, states[i].challenge - duration)
            }
        }
        if let takeover { switchActiveSpeaker(to: takeover) }
    }

    private mutating func switchActiveSpeaker(to index: Int) {
        activeSpeaker = participants[index]
        activeSpeakerChanged = true
        for i in states.indices { states[i].challenge = .zero }
    }
}
