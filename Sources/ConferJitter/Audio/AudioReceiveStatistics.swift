/// What an ``AudioJitterBuffer`` has received and played, in the terms of the W3C
/// `RTCInboundRtpStreamStats` where one exists.
///
/// "Samples" are sample frames: one sample per channel, as libwebrtc counts them. Every
/// counter only grows; none counts a duplicate or a packet outside the stream as a new
/// packet, and ``packetsLost`` is never negative.
public struct AudioReceiveStatistics: Sendable, Hashable, Codable {
    /// Distinct packets received, including ones discarded as late (W3C `packetsReceived`).
    public var packetsReceived: Int64 = 0
    /// Packets expected from the sequence numbers but never received; never negative.
    public var packetsLost: Int64 = 0
    /// Packets received again after a copy had been received (not in ``packetsReceived``).
    public var packetsDuplicated: Int64 = 0
    /// Packets thrown away: too late to play, flushed on overflow, or outside the stream
    /// (W3C `packetsDiscarded`).
    public var packetsDiscarded: Int64 = 0
    /// Packets whose payload was not a valid Opus packet or failed to decode; played as losses.
    public var packetsUndecodable: Int64 = 0
    /// Lost packets recovered from the in-band FEC (LBRR) of the packet after them.
    public var fecPacketsRecovered: Int64 = 0
    /// Interarrival jitter in seconds, by RFC 3550 §6.4.1 (W3C `jitter`).
    public var jitter: Double = 0
    /// Sum over played samples of the time from their packet's arrival to their playing,
    /// in seconds (W3C `jitterBufferDelay`); divide by ``jitterBufferEmittedCount``.
    public var jitterBufferDelay: Double = 0
    /// Sum over played samples of the target delay when they were played, in seconds
    /// (W3C `jitterBufferTargetDelay`).
    public var jitterBufferTargetDelay: Double = 0
    /// Samples decoded from packets (or their FEC) and played (W3C `jitterBufferEmittedCount`).
    public var jitterBufferEmittedCount: Int64 = 0
    /// Samples played that were synthesized for missing audio: packet-loss concealment and
    /// the comfort noise it fades into (W3C `concealedSamples`).
    public var concealedSamples: Int64 = 0
    /// The part of ``concealedSamples`` that was silence or comfort noise (W3C `silentConcealedSamples`).
    public var silentConcealedSamples: Int64 = 0
    /// Runs of concealed samples (W3C `concealmentEvents`).
    public var concealmentEvents: Int64 = 0
    /// Samples added by time stretching to grow the delay (W3C `insertedSamplesForDeceleration`).
    public var insertedSamplesForDeceleration: Int64 = 0
    /// Samples removed by time stretching to shrink the delay (W3C `removedSamplesForAcceleration`).
    public var removedSamplesForAcceleration: Int64 = 0
    /// Comfort-noise samples played while the sender was in DTX (not concealment: nothing was lost).
    public var comfortNoiseSamples: Int64 = 0
    /// Samples played since the first packet started playing, concealment included
    /// (W3C `totalSamplesReceived`).
    public var totalSamplesReceived: Int64 = 0
    /// Seconds of audio played since the first packet started playing (W3C `totalSamplesDuration`).
    public var totalSamplesDuration: Double = 0
    /// Sum of squared sample values (fractions of full scale) times their duration in
    /// seconds (W3C `totalAudioEnergy`).
    public var totalAudioEnergy: Double = 0
    /// RMS of the last 100 ms played, linear 0…1 where 1 is full scale (W3C `audioLevel`).
    public var audioLevel: Double = 0
    /// Times the buffer overflowed and flushed down to the target delay.
    public var bufferFlushes: Int64 = 0
    /// Times the stream restarted (sequence numbers or timestamps jumped, confirmed by a
    /// second packet) and the buffer started over.
    public var streamResets: Int64 = 0
    /// Audio held now, decoded and in packets, in seconds.
    public var bufferLevel: Double = 0
    /// The current target delay in seconds: how long a packet that arrives with the
    /// least delay should wait before it plays.
    public var targetDelay: Double = 0
    /// The current estimate of that wait, in seconds (0 before playing starts).
    public var currentDelay: Double = 0

    /// All counters zero.
    public init() {}
}
