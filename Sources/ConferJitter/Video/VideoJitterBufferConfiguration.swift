public import ConferMedia

/// How a ``VideoJitterBuffer`` trades delay for smoothness, how hard it tries to recover
/// lost packets, and how much memory it may hold.
public struct VideoJitterBufferConfiguration: Sendable, Hashable {
    /// Most packets buffered at once (rounded up to a power of two, 64…32768). With
    /// ``maxPayloadSize`` it bounds memory; it must hold the packets of ``maxDelay`` plus a
    /// frame being retransmitted. 2048 is 1.5 s of 8 Mbit/s video.
    public var packetCapacity: Int
    /// The largest RTP payload accepted; larger packets are dropped as malformed. Every
    /// packet slot is this big, reserved when the buffer is made (2048 × 1500 bytes, 3 MB
    /// of address space by default, committed as packets fill it).
    public var maxPayloadSize: Int

    /// Whether lost packets are asked for again (NACK, answered with RTX).
    public var nackEnabled: Bool
    /// Retry limits. Its ``NackTracker/Configuration/maxAge`` is replaced by ``maxDelay``:
    /// a packet missing for longer could not be played in time anyway.
    public var nack: NackTracker.Configuration
    /// Window and percentile of the delay variation estimate.
    public var jitter: JitterEstimator.Configuration
    /// PLI or FIR.
    public var keyframeRequestMethod: KeyframeRequestMethod
    /// The shortest time between keyframe requests (or the RTT, when longer).
    public var minKeyframeRequestInterval: TimeDelta

    /// Added to the jitter estimate for decoding and rendering.
    public var renderMargin: TimeDelta
    /// The least target delay.
    public var minDelay: TimeDelta
    /// The cap on the target delay in time.
    public var maxDelay: TimeDelta
    /// The cap on the target delay in frames, at the stream's measured frame interval.
    public var maxDelayFrames: Int
    /// How long the target delay takes to fall by 63 % of the way to a lower estimate (it
    /// rises at once): slow decay keeps one quiet second from undoing the delay a jittery
    /// link needs.
    public var delayDecayTime: TimeDelta
    /// How long after the last frame completed by a retransmission the retransmission time
    /// — an RTT plus a frame interval — stays in the target delay (libwebrtc adds the RTT
    /// once NACKs are in use, so retransmitted frames are on time).
    public var retransmissionMemory: TimeDelta
    /// How far past its render time a frame may still wait for a retransmission it needs.
    public var maxLateness: TimeDelta
    /// A frame whose arrival differs from its timestamp's mapping by more than this is a
    /// timing discontinuity (a sender restart, a hostile timestamp): it is played on arrival
    /// and kept out of the estimate; three in a row re-anchor the mapping.
    public var timingDiscontinuity: TimeDelta
    /// The RTT assumed until ``VideoJitterBuffer/updateRTT(_:)`` is called (libwebrtc's default).
    public var initialRTT: TimeDelta
    /// Whether every complete frame is delivered as soon as it and the packets before it are
    /// in, whatever its render time and whether or not its references arrived: a recorder's
    /// buffer, which reorders and assembles but neither waits nor judges (the decoder then
    /// decodes on past a loss, as GStreamer's `rtpjitterbuffer ! depay ! dec` does). Keyframes
    /// are then never requested.
    public var deliversWhenComplete: Bool
    /// With ``deliversWhenComplete``, how many newer packets may arrive after a gap before the
    /// packets missing there are given up (or ``maxLateness`` after the frame behind the gap
    /// began to arrive, whichever comes first, so the end of a stream drains).
    public var reorderWindow: Int

    /// Settings for a meeting: NACK on, 10 ms render margin, delay capped at 500 ms and 15 frames.
    public init(packetCapacity: Int = 2048, maxPayloadSize: Int = 1500, nackEnabled: Bool = true,
                nack: NackTracker.Configuration = NackTracker.Configuration(),
                jitter: JitterEstimator.Configuration = JitterEstimator.Configuration(),
                keyframeRequestMethod: KeyframeRequestMethod = .pli,
                minKeyframeRequestInterval: TimeDelta = .milliseconds(300),
                renderMargin: TimeDelta = .milliseconds(10), minDelay: TimeDelta = .zero,
                maxDelay: TimeDelta = .milliseconds(500), maxDelayFrames: Int = 15,
                delayDecayTime: TimeDelta = .seconds(1), retransmissionMemory: TimeDelta = .seconds(10),
                maxLateness: TimeDelta = .milliseconds(300), timingDiscontinuity: TimeDelta = .seconds(2),
                initialRTT: TimeDelta = .milliseconds(100), deliversWhenComplete: Bool = false, reorderWindow: Int = 16) {
        self.packetCapacity = packetCapacity
        self.maxPayloadSize = maxPayloadSize
        self.nackEnabled = nackEnabled
        self.nack = nack
        self.jitter = jitter
        self.keyframeRequestMethod = keyframeRequestMethod
        self.minKeyframeRequestInterval = minKeyframeRequestInterval
        self.renderMargin = renderMargin
        self.minDelay = minDelay
        self.maxDelay = maxDelay
        self.maxDelayFrames = maxDelayFrames
        self.delayDecayTime = delayDecayTime
        self.retransmissionMemory = retransmissionMemory
        self.maxLateness = maxLateness
        self.timingDiscontinuity = timingDiscontinuity
        self.initialRTT = initialRTT
        self.deliversWhenComplete = deliversWhenComplete
        self.reorderWindow = reorderWindow
    }
}
