public import ConferMedia
public import ConferNet

/// How a ``Simulation`` runs a call: codec and bitrates, the network both ways, and which
/// loss defences are on.
public struct SimulationOptions: Sendable {
    /// A change of network conditions part-way through (a route change, a jitter spell ending).
    public struct NetworkChange: Sendable {
        /// When the new conditions start, from the first capture.
        public var time: TimeDelta
        /// Sender to receiver from then on.
        public var forward: NetworkConditions
        /// Receiver to sender from then on.
        public var backward: NetworkConditions

        /// New conditions from `time` on.
        public init(time: TimeDelta, forward: NetworkConditions, backward: NetworkConditions) {
            self.time = time
            self.forward = forward
            self.backward = backward
        }
    }

    /// VP8, VP9 or H.264.
    public var codec: Codec
    /// Sender to receiver: media.
    public var forward: NetworkConditions
    /// Receiver to sender: RTCP feedback. The same delay as ``forward`` by default.
    public var backward: NetworkConditions
    /// A per-packet trace replacing the forward path's delay and loss model (see ``NetworkTrace``).
    public var forwardTrace: NetworkTrace?
    /// Later changes of conditions, in time order.
    public var networkChanges: [NetworkChange]
    /// Seeds the network's randomness and the streams' random starting numbers.
    public var seed: UInt64
    /// Whether lost video packets are asked for again (NACK → RTX).
    public var nack: Bool
    /// Whether Opus carries in-band FEC.
    public var fec: Bool
    /// Whether the sender paces video packets (``SendPipelineConfiguration/paces``).
    public var pacing = true
    /// The video bitrate to start at and never exceed, bits per second; nil picks one for the picture size.
    public var videoBitrate: Int?
    /// The Opus bitrate, bits per second.
    public var audioBitrate: Int
    /// libvpx `cpu-used` or x264 preset index. For VP8 the simulation uses the fixed speed
    /// −|speed|: a positive value would let libvpx adapt it to wall-clock encode times.
    public var speed: Int
    /// Whether the encoder may skip frames to hold its bitrate.
    public var allowsFrameDropping: Bool
    /// The largest datagram.
    public var maximumPacketSize: Int
    /// Stop after this much input; nil reads it all.
    public var maximumDuration: TimeDelta?
    /// How long to keep running after the last capture so the last frames can arrive.
    public var drainTime: TimeDelta
    /// When set, the sender is replaced at this time by a new one with new SSRCs and
    /// sequence numbers, as when an app restarts its camera or reconnects.
    public var senderRestart: TimeDelta?
    /// How often the report's timeline samples bitrate and delay.
    public var sampleInterval: TimeDelta

    /// A simulation of `codec` over `forward` (and by default the same delay back, no loss),
    /// NACK and FEC on.
    public init(codec: Codec = .vp8, forward: NetworkConditions = .perfect, backward: NetworkConditions? = nil,
                forwardTrace: NetworkTrace? = nil, networkChanges: [NetworkChange] = [], seed: UInt64 = 1,
                nack: Bool = true, fec: Bool = true, videoBitrate: Int? = nil, audioBitrate: Int = 32_000, speed: Int = 8,
                allowsFrameDropping: Bool = true, maximumPacketSize: Int = 1200, maximumDuration: TimeDelta? = nil,
                drainTime: TimeDelta = .seconds(1), senderRestart: TimeDelta? = nil, sampleInterval: TimeDelta = .milliseconds(100)) {
        self.codec = codec
        self.forward = forward
        self.backward = backward ?? NetworkConditions(delay: forward.delay)
        self.forwardTrace = forwardTrace
        self.networkChanges = networkChanges
        self.seed = seed
        self.nack = nack
        self.fec = fec
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.speed = speed
        self.allowsFrameDropping = allowsFrameDropping
        self.maximumPacketSize = maximumPacketSize
        self.maximumDuration = maximumDuration
        self.drainTime = drainTime
        self.senderRestart = senderRestart
        self.sampleInterval = sampleInterval
    }

    /// The video bitrate used for a `width` × `height` picture at `frameRate`: the option,
    /// or about 0.1 bit per pixel per frame (at least 150 kbit/s).
    public func effectiveVideoBitrate(width: Int, height: Int, frameRate: Double) -> Int {
        if let videoBitrate { return videoBitrate }
        let bitsPerFrame = Double(width * height) * 0.1
        return max(150_000, Int(bitsPerFrame * frameRate / 1000) * 1000)
    }
}
