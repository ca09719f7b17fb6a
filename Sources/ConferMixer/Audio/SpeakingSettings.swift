public import ConferMedia

/// When a participant is speaking and who the active speaker is: thresholds and times for
/// ``SpeakingDetector`` (and the ``AudioMixer``'s noise gate, which shares the thresholds).
///
/// The defaults answer the two complaints people make about speaker highlights — that they
/// strobe on breaths and between words, and that they switch too slowly or to whoever
/// coughed:
/// - ``onThreshold`` −50 dBov / ``offThreshold`` −55 dBov: conversational speech sits
///   around −35…−20 dBov and its soft consonants and word tails near −45; a room after
///   noise suppression sits below −60. −50 opens on the quietest speech and not on the
///   room; the 5 dB gap stops a level hovering at the threshold from chattering on and off.
/// - ``onset`` 60 ms: a key tap, click or plosive lasts under ~50 ms and does not light
///   the highlight; the first syllable of a word (100–200 ms) does, within 60 ms.
/// - ``hold`` 700 ms: pauses between words (100–300 ms) and breaths (300–600 ms) keep the
///   participant speaking, so the highlight does not strobe; a real stop clears it after
///   0.7 s, before it reads as "still shown talking".
/// - ``confirmation`` 1.2 s: while the active speaker is still speaking, someone else must
///   out-talk them (be the loudest, by ``dominanceMargin``) for a net 1.2 s before the
///   layout switches. Coughs, laughs and back-channel "yeah, right" (0.2–1 s) never steal
///   it; a real interruption takes it about a second after it starts — longer (1.5 s+)
///   leaves the previous face on screen for the whole first sentence.
/// - ``handover`` 500 ms: once the active speaker has stopped speaking (their hold has
///   run out), the next person needs only 0.5 s of speech, so ordinary turn-taking
///   switches promptly while a cough (≈100–300 ms) still does not.
/// - ``dominanceMargin`` 3 dB: with two people talking at about the same level, the one
///   already shown keeps the layout (the other must be clearly louder to win a step).
public struct SpeakingSettings: Hashable, Sendable, Codable {
    /// Level (dBov) at or above which a step counts as voiced. Default −50.
    public var onThreshold: Double
    /// Level (dBov) at or above which an already voiced participant stays voiced. Default −55.
    public var offThreshold: Double
    /// How long a participant must be voiced without a break to become speaking. Default 60 ms.
    public var onset: TimeDelta
    /// How long a speaking participant must be unvoiced to stop speaking. Default 700 ms.
    public var hold: TimeDelta
    /// Net time another participant must be the loudest while the active speaker is still
    /// speaking before it takes over. Default 1.2 s.
    public var confirmation: TimeDelta
    /// Net time another participant must be the loudest once the active speaker has stopped
    /// speaking before it takes over. Default 500 ms.
    public var handover: TimeDelta
    /// How much louder (dB) than a voiced active speaker another participant must be to
    /// count as the loudest in a step. Default 3.
    public var dominanceMargin: Double

    /// Settings with these values; see the type's documentation for the defaults' reasons.
    public init(onThreshold: Double = -50, offThreshold: Double = -55, onset: TimeDelta = .milliseconds(60),
                hold: TimeDelta = .milliseconds(700), confirmation: TimeDelta = .milliseconds(1200),
                handover: TimeDelta = .milliseconds(500), dominanceMargin: Double = 3) {
        self.onThreshold = onThreshold
        self.offThreshold = offThreshold
        self.onset = onset
        self.hold = hold
        self.confirmation = confirmation
        self.handover = handover
        self.dominanceMargin = dominanceMargin
    }

    /// These settings with thresholds in −127…0 dBov (off never above on), times not
    /// negative and the margin finite and not negative.
    var clamped: SpeakingSettings {
        func level(_ x: Double, _ fallback: Double) -> Double { x.isFinite ? min(0, max(-127, x)) : fallback }
        var s = self
        s.onThreshold = level(onThreshold, -50)
        s.offThreshold = min(s.onThreshold, level(offThreshold, -55))
        s.onset = max(.zero, onset)
        s.hold = max(.zero, hold)
        s.confirmation = max(.zero, confirmation)
        s.handover = max(.zero, handover)
        s.dominanceMargin = dominanceMargin.isFinite ? max(0, dominanceMargin) : 3
        return s
    }
}
