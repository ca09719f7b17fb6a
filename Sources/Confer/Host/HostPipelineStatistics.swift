public import ConferMixer
public import ConferCongestion

/// A snapshot of a ``HostPipeline``: the composite, the audio encoders, and each participant.
public struct HostPipelineStatistics: Sendable, Codable {
    /// Canvas frames composed.
    public var videoFramesComposed = 0
    /// Composite frames the encoder produced (one encode serves every participant).
    public var videoFramesEncoded = 0
    /// Composite frames the encoder's rate control skipped.
    public var videoFramesDroppedByEncoder = 0
    /// Composite frames packetized and sent to the participants.
    public var videoFramesSent = 0
    /// Composite frames not composed because the host was polled too late for them.
    public var videoFramesSkipped = 0
    /// Composite frames sent per second over the last second: the host's video send frame rate.
    public var sendFrameRate = 0.0
    /// Keyframes encoded (the first frame, and requests the throttle let through).
    public var keyFramesEncoded = 0
    /// Keyframe requests: PLIs, new FIRs, and one per participant that joined.
    public var keyframeRequestsReceived = 0
    /// Requests that arrived while a keyframe was already pending, so cost nothing more.
    public var keyframeRequestsAbsorbed = 0
    /// The composite's target bitrate in bits per second: the weakest participant's
    /// estimate less audio, within the configured bounds.
    public var videoTargetBitrate = 0
    /// How many times the composite's bitrate was changed.
    public var videoBitrateChanges = 0
    /// The width the composite is encoded at now (the canvas's, or smaller while the bitrate is low).
    public var encodedWidth = 0
    /// The height the composite is encoded at now.
    public var encodedHeight = 0
    /// How many times the composite's encoded size changed with the bitrate.
    public var resolutionChanges = 0
    /// Temporal layers the composite is encoded with now (more than one only while some
    /// participant gets fewer).
    public var temporalLayers = 1
    /// Times the composite's temporal layers were turned on or off.
    public var temporalLayerChanges = 0
    /// The base layer's share of the bitrate (nil: the encoder's default, while no participant takes fewer layers).
    public var baseLayerShare: Double?
    /// Frames of the small encode, for participants whose links cannot carry the composite
    /// (``HostPipelineConfiguration/simulcast``).
    public var smallEncodeFramesEncoded = 0
    /// Its frames its rate control skipped.
    public var smallEncodeFramesDropped = 0
    /// Its keyframes.
    public var smallEncodeKeyFrames = 0
    /// Its target bitrate now, bit/s (0: it has not run).
    public var smallEncodeBitrate = 0
    /// The width it encodes at now (0: it has not run).
    public var smallEncodeWidth = 0
    /// The height it encodes at now.
    public var smallEncodeHeight = 0
    /// Opus frames encoded: one per frame for all non-speaking listeners, one per speaker.
    public var audioFramesEncoded = 0
    /// Opus encoders that encoded the last frame.
    public var audioEncodersInUse = 0
    /// The most Opus encoders any frame used.
    public var maximumAudioEncodersInUse = 0
    /// Opus encoders created (the shared one and the pool's).
    public var audioEncodersCreated = 0
    /// Mixer steps skipped because the host was polled too late for them.
    public var audioStepsSkipped = 0
    /// The participant speaker-led layouts show, if any.
    public var activeSpeaker: ParticipantID?
    /// Datagrams handed in for a participant the host does not know (dropped).
    public var datagramsFromUnknownParticipants = 0
    /// The compositor's counters (slots copied, scaled, shown as placeholders, …).
    public var compositor = VideoCompositor.Statistics()
    /// The mixer's counters.
    public var mixer = AudioMixerStatistics()
    /// Each participant, by id.
    public var participants: [ParticipantID: HostParticipantStatistics] = [:]

    /// Nothing yet.
    public init() {}
}

/// What a ``HostPipeline`` received from one participant and sent to it.
public struct HostParticipantStatistics: Sendable, Codable {
    /// The receive chain for what the participant sends (its discarded datagrams count garbage).
    public var receive = ReceivePipelineStatistics()
    /// Composite packets sent to the participant.
    public var videoPacketsSent = 0
    /// Bytes of those packets, SRTP included.
    public var videoBytesSent = 0
    /// Audio packets sent to the participant.
    public var audioPacketsSent = 0
    /// Bytes of those packets, SRTP included.
    public var audioBytesSent = 0
    /// RTX packets sent to the participant (answers to its own NACKs only).
    public var retransmittedPacketsSent = 0
    /// Bytes of those packets, SRTP included.
    public var retransmittedBytesSent = 0
    /// Padding packets sent to probe the participant's path.
    public var paddingPacketsSent = 0
    /// Bytes of those packets.
    public var paddingBytesSent = 0
    /// RTCP compounds sent to the participant by the host's send side (sender reports).
    public var rtcpPacketsSent = 0
    /// Feedback compounds received from the participant.
    public var feedbackReceived = 0
    /// Feedback compounds that did not authenticate or parse (dropped).
    public var feedbackMalformed = 0
    /// NACK messages the participant sent.
    public var nacksReceived = 0
    /// PLI messages the participant sent.
    public var plisReceived = 0
    /// New FIR commands the participant sent.
    public var firsReceived = 0
    /// The round-trip time to the participant, in seconds.
    public var roundTripTime: Double?
    /// The bandwidth estimate of the path to the participant.
    public var bandwidth: BandwidthEstimatorSnapshot?
    /// Whether the mixer holds the participant as speaking.
    public var isSpeaking = false
    /// Whether the participant hears its own mix-minus (it is contributing) rather than the shared mix.
    public var hasOwnAudioEncoder = false
    /// Pictures decoded from the participant.
    public var framesReceived = 0
    /// Width of the last picture received (0: none yet).
    public var frameWidth = 0
    /// Height of the last picture received.
    public var frameHeight = 0
    /// Pictures received per second over the last second.
    public var receiveFrameRate = 0.0
    /// The composite's temporal layers this participant gets now, of those encoded (see
    /// ``HostPipelineStatistics/temporalLayers``).
    public var temporalLayers = 1
    /// Composite frames left out for this participant because their layer is above its own.
    public var framesLeftOut = 0
    /// Times this participant's layers changed.
    public var layerSwitches = 0
    /// Whether it gets the small encode now (``HostPipelineStatistics/smallEncodeWidth``).
    public var getsSmallEncode = false
    /// Times it moved between the two encodes.
    public var encodeSwitches = 0
    /// Retransmissions it asked for and did not get: the packets were of the encode it had
    /// left (useless after the new one's keyframe).
    public var retransmissionsOfFormerEncode = 0
    /// Retransmissions it asked for and did not get now: its link's target over the last
    /// half second was spent on retransmissions already (``RetransmissionRateLimiter``).
    public var retransmissionsOverBudget = 0
    /// Times it was given its layers back because the base layer alone did not fit its link.
    public var layerReductionsAbandoned = 0
    /// Keyframe requests (PLI, FIR) not passed on: it got fewer layers and had one made for
    /// it less than two seconds before.
    public var keyframeRequestsIgnored = 0

    /// Nothing yet.
    public init() {}
}
