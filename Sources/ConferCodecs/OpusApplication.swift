internal import COpus

/// What an Opus encoder is tuned for.
public enum OpusApplication: String, Sendable, Hashable, Codable, CaseIterable {
    /// Speech: favours intelligibility (`OPUS_APPLICATION_VOIP`); the meeting default.
    case voip
    /// Music or mixed content: favours fidelity (`OPUS_APPLICATION_AUDIO`).
    case audio
    /// Lowest delay, CELT only (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`).
    case restrictedLowDelay

    var rawOpusValue: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }
}
