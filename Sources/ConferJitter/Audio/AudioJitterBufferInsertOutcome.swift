/// What ``AudioJitterBuffer`` did with one inserted packet.
public enum AudioJitterBufferInsertOutcome: Sendable, Hashable, Codable {
    /// Stored for decoding.
    case accepted
    /// Stored as the first packet of a restarted stream: this packet and the one before
    /// it jumped together, far from the old stream, so the buffer started over.
    case acceptedAfterRestart
    /// A copy of a packet already received; counted in ``AudioReceiveStatistics/packetsDuplicated``.
    case duplicate
    /// Its audio has already been played or concealed; counted as discarded.
    case tooLate
    /// Its payload is not a valid Opus packet (or is too long); counted as undecodable
    /// and played as a loss.
    case undecodable
    /// Its sequence number or timestamp is far outside the stream; counted as discarded,
    /// and remembered in case the next packet confirms a restart.
    case outOfStream
    /// A packet with the same timestamp but another sequence number is already stored;
    /// counted as discarded.
    case conflictingTimestamp
}
