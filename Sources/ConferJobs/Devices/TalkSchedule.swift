public import ConferMedia

/// Who talks when in a synthetic meeting: members take turns, one at a time, in order.
///
/// Member *k* of *n* talks from `lead + (k + m·n)·turn` for `turn` seconds (every round
/// *m*), so every change of speaker is known in advance and the host's speaking detection
/// can be checked against it. A turn fades in and out over ``fade`` so the edges do not
/// click. The first `lead` seconds are silent (everyone is still joining).
public struct TalkSchedule: Sendable, Hashable {
    /// Members taking turns.
    public var members: Int
    /// One turn's length.
    public var turn: TimeDelta
    /// Silence before the first turn.
    public var lead: TimeDelta
    /// Fade at each end of a turn.
    public var fade: TimeDelta

    /// Turns of `turn` for `members` members after `lead` of silence.
    public init(members: Int, turn: TimeDelta = .seconds(2.5), lead: TimeDelta = .milliseconds(500),
                fade: TimeDelta = .milliseconds(10)) {
        self.members = max(members, 1)
        self.turn = turn
        self.lead = lead
        self.fade = fade
    }

    /// The member (0-based) whose turn it is at `time`, nil during the lead.
    public func talker(at time: Timestamp) -> Int? {
        let since = time - .zero - lead
        guard since >= .zero, turn > .zero else { return nil }
        return Int((since.microseconds / turn.microseconds) % Int64(members))
    }

    /// The gain (0…1) of member `member`'s voice at `time`: 1 inside its turn, ramping at the edges.
    public func gain(of member: Int, at time: Timestamp) -> Double {
        guard talker(at: time) == member else { return 0 }
        let since = (time - .zero - lead).microseconds % turn.microseconds
        let edge = min(since, turn.microseconds - since)
        guard fade > .zero, edge < fade.microseconds else { return 1 }
        return Double(edge) / Double(fade.microseconds)
    }

    /// Gates `frame` (a 48 kHz tone starting at `start`) to member `member`'s turns.
    public func apply(to frame: inout AudioFrame, member: Int, start: Timestamp) {
        let channels = frame.channels, count = frame.frameCount
        // One gain per millisecond is smooth enough for a 10 ms fade and keeps this cheap.
        let step = conferSampleRate / 1000
        frame.samples.withUnsafeMutableBufferPointer { samples in
            var index = 0
            while index < count {
                let gain = self.gain(of: member, at: start + TimeDelta(microseconds: Int64(index) * 1_000_000 / Int64(conferSampleRate)))
                let end = min(index + step, count)
                if gain < 1 {
                    for i in index * channels ..< end * channels {
                        samples[i] = Int16((Double(samples[i]) * gain).rounded())
                    }
                }
                index = end
            }
        }
    }
}
