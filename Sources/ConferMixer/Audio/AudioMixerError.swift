/// Why the ``AudioMixer`` refused a request. Nothing the mixer is fed makes it trap; a
/// request it cannot honour is one of these, and the mixer is left as it was.
public enum AudioMixerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The participant (described) was never added or has been removed.
    case unknownParticipant(String)
    /// The participant (described) is already in the mix.
    case participantAlreadyAdded(String)
    /// The mixer already holds its configured maximum of participants.
    case tooManyParticipants(limit: Int)
    /// A gain that is negative, not finite, or above the configured maximum (linear).
    case invalidGain(Double)
    /// Pushed samples with a channel count other than 1 or 2.
    case invalidChannelCount(Int)
    /// Pushed samples whose count is not a whole number of frames for their channel count.
    case partialSampleFrame(sampleCount: Int, channels: Int)

    /// A sentence for a log: what was refused and why.
    public var description: String {
        switch self {
        case let .unknownParticipant(p): "audio mixer: unknown participant \(p)"
        case let .participantAlreadyAdded(p): "audio mixer: participant \(p) is already mixed"
        case let .tooManyParticipants(limit): "audio mixer: already mixing the maximum of \(limit) participants"
        case let .invalidGain(g): "audio mixer: gain \(g) is not in the allowed range"
        case let .invalidChannelCount(c): "audio mixer: \(c) channels pushed; audio must be mono or stereo"
        case let .partialSampleFrame(n, c): "audio mixer: \(n) samples do not fill whole \(c)-channel frames"
        }
    }
}
