/// A snapshot of what one video receive stream did, named as W3C webrtc-stats names
/// `RTCInboundRtpStreamStats` members where there is one. Times are in seconds.
///
/// One difference from W3C, on purpose: ``packetsReceived`` counts each original packet
/// once and leaves out retransmissions and duplicates (W3C includes retransmissions), so
/// W3C's value is `packetsReceived + retransmittedPacketsReceived`. ``packetsLost`` is
/// W3C's: packets expected and never received in any form, never negative.
public struct VideoReceiveStatistics: Sendable, Hashable, Codable {
    /// Original (not retransmitted) packets received, each sequence number once.
    public var packetsReceived = 0
    /// Packets expected (from the sequence numbers seen) and never received, even retransmitted.
    public var packetsLost = 0
    /// Packets dropped because their sequence number had already been received.
    public var packetsDuplicated = 0
    /// Retransmitted (RTX) packets received, duplicates included.
    public var retransmittedPacketsReceived = 0
    /// Packets that arrived after their frame was played or given up.
    public var packetsLate = 0
    /// Packets dropped as malformed: unparseable payloads or payloads above the size limit.
    public var packetsMalformed = 0
    /// Packets dropped because their sequence number was far outside the stream's window.
    public var packetsOutOfRange = 0
    /// Payload bytes of the packets counted in ``packetsReceived``.
    public var bytesReceived = 0
    /// RFC 3550 interarrival jitter of original packets, in seconds.
    public var jitter = 0.0

    /// Complete frames assembled from packets.
    public var framesReceived = 0
    /// Frames handed to the decoder by the jitter buffer.
    public var framesDelivered = 0
    /// Frames the decoder decoded (reported through ``VideoJitterBuffer/frameDecoded(at:isKeyframe:)``).
    public var framesDecoded = 0
    /// Keyframes the decoder decoded.
    public var keyFramesDecoded = 0
    /// Complete frames not delivered: undecodable, too late, malformed, or pushed out.
    public var framesDropped = 0
    /// Frames rendered (reported through ``VideoJitterBuffer/frameRendered(at:)``).
    public var framesRendered = 0
    /// Freezes (see ``FreezeDetector``).
    public var freezeCount = 0
    /// Total length of the freezes, in seconds.
    public var totalFreezesDuration = 0.0
    /// Pauses (render gaps over 5 s).
    public var pauseCount = 0
    /// Total length of the pauses, in seconds.
    public var totalPausesDuration = 0.0

    /// Sum over delivered frames of the time from their first packet's arrival to their delivery, in seconds.
    public var jitterBufferDelay = 0.0
    /// Sum over delivered frames of the target delay when each was delivered, in seconds.
    public var jitterBufferTargetDelay = 0.0
    /// Frames delivered, the divisor of the two sums above.
    public var jitterBufferEmittedCount = 0
    /// The target delay now, in seconds.
    public var currentTargetDelay = 0.0
    /// Delivered frames whose target delay was held down by the delay cap (ms or frames).
    public var delayCapHits = 0
    /// Whether the cap holds the target delay down now.
    public var isDelayCapped = false

    /// NACK packets sent (W3C `nackCount`).
    public var nackCount = 0
    /// Sequence numbers asked for in those NACKs, repeats included.
    public var packetsNacked = 0
    /// Missing packets that arrived after all (retransmitted or late).
    public var packetsRecovered = 0
    /// Missing packets given up (retries exhausted, too old, or no longer needed).
    public var packetsGivenUp = 0
    /// PLIs sent.
    public var pliCount = 0
    /// FIRs sent.
    public var firCount = 0
    /// Times the stream was started again (new SSRC, or sequence numbers that restarted).
    public var streamRestarts = 0

    /// All counters at zero.
    public init() {}
}
