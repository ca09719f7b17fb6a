/// What a ``FrameAssembler`` did with the packets it was given.
public struct FrameAssemblerStats: Hashable, Sendable, Codable {
    /// Packets buffered for assembly.
    public var packetsBuffered = 0
    /// Packets dropped because the same sequence number was already buffered.
    public var packetsDuplicate = 0
    /// Packets dropped because frames after them had already been emitted or given up.
    public var packetsLate = 0
    /// Packets dropped because their payload could not be parsed.
    public var packetsMalformed = 0
    /// Buffered packets thrown away without becoming part of an emitted frame.
    public var packetsDiscarded = 0
    /// Frames emitted.
    public var framesEmitted = 0
    /// Frames given up on because a packet was missing or the buffer was full (counted by
    /// distinct RTP timestamps among the packets thrown away, at least one per gap).
    public var framesIncomplete = 0
    /// Frames whose packets were all present but did not depacketize (say, an FU-A with no start).
    public var framesMalformed = 0

    /// All counters at zero.
    public init() {}
}

/// What ``FrameAssembler/insert(sequenceNumber:timestamp:marker:payload:)`` did with a packet.
public enum FrameAssemblerInsertion: Hashable, Sendable {
    /// The packet is buffered.
    case buffered
    /// A packet with this sequence number is already buffered; this one was dropped.
    case duplicate
    /// The packet's frame was already emitted or given up; it was dropped.
    case late
    /// The payload is malformed; the packet was dropped.
    case malformed(PayloadError)
}
