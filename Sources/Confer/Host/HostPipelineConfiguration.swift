public import ConferMedia
public import ConferMixer
public import ConferRTP
public import ConferSRTP

/// What a ``HostPipeline`` sends to every participant and how it composes it.
///
/// Every participant receives the same composite: one video stream (``codec``, with RFC 4588
/// retransmission) and one Opus stream, on the payload types, SSRCs and header extension ids
/// below — whatever ``HostPipeline/participantReceiveConfiguration`` says a participant
/// should configure. The defaults are ``SendPipelineConfiguration``'s payload types and
/// extension ids, so a participant's ordinary ``ReceivePipeline`` decodes the host.
public struct HostPipelineConfiguration: Sendable {
    /// The composite video codec: VP8, VP9 or H.264.
    public var codec: Codec
    /// Canvas width in pixels (even, at least 16).
    public var width: Int
    /// Canvas height in pixels (even, at least 16).
    public var height: Int
    /// Frames per second the canvas is composed and encoded at (0 < rate ≤ 240).
    public var frameRate: Double
    /// How participants are arranged; speaker-led layouts follow the mixer's active speaker.
    public var layout: LayoutKind
    /// The composite bitrate never exceeded, in bits per second.
    public var maximumBitrate: Int
    /// The composite bitrate never gone below, in bits per second, however weak the weakest link.
    public var minimumBitrate: Int
    /// The composite bitrate before any participant's bandwidth estimate says otherwise;
    /// nil starts at the lesser of the maximum and 300 kbit/s.
    public var startBitrate: Int?
    /// Each Opus stream's bitrate, in bits per second.
    public var audioBitrate: Int
    /// Milliseconds of audio per Opus packet: 10, 20, 40 or 60.
    public var audioFrameDuration: Int
    /// At most one requested keyframe per interval: requests inside it are served when it ends.
    public var keyframeRequestInterval: TimeDelta
    /// How long after a participant's last picture its slot shows the placeholder.
    public var placeholderTimeout: TimeDelta
    /// How long after a participant's last audio packet it is mixed as silence: shorter gaps
    /// are concealed by its receive chain, longer ones would be filled with noise.
    public var audioTimeout: TimeDelta
    /// libvpx `cpu-used` or the x264 preset index. For VP8 it is used negated: a positive
    /// value lets libvpx pick its speed from wall-clock encode times, so runs in virtual
    /// time would depend on the machine's load (see ``Simulation``).
    public var speed: Int
    /// Encoder threads.
    public var threads: Int
    /// Whether the encoder's rate control may skip frames to hold the bitrate.
    public var allowsFrameDropping: Bool
    /// Whether the composite is encoded smaller than the canvas while the bitrate is too
    /// low for the canvas at full frame rate (``VideoResolutionLadder``); receivers scale it
    /// to their views. Off: always the canvas, and the encoder drops frames instead.
    public var adaptsResolution: Bool
    /// Whether the host asks each participant (REMB) for no more than its slot shows:
    /// ``VideoResolutionLadder/bitrate(forShowing:height:frameRate:)`` of its tile at the
    /// tile's frame rate (half the composite's for a tile under 1/20 of the canvas), the
    /// least for a participant the layout leaves off the canvas (a limit above what one
    /// sends anyway changes nothing). The participant's encoder then picks the size and
    /// frame rate that bitrate affords, so uplinks and the host's decoding follow the layout.
    public var requestsSlotBitrates: Bool
    /// Temporal layers in the composite (1…3; VP8 or VP9, H.264 encodes one). With
    /// more than one, the host forwards each participant the layers its estimate carries
    /// (``TemporalLayerAllocator``): a participant on a weak link gets half or a quarter
    /// of the frame rate instead of setting everyone's bitrate. One by default: on a link
    /// too weak for even the base layer, each attempt costs that participant frames.
    public var temporalLayers: Int
    /// How a VP9 composite in temporal layers describes them to participants: RFC 9628
    /// flexible mode by default; ``VP9LayerSignalling/pictureIDsOnly`` for a receiver that
    /// reads an older draft's descriptor (FFmpeg 5.1), each participant then seeing one
    /// unbroken stream at its own frame rate. Set after `init`.
    public var vp9LayerSignalling: VP9LayerSignalling = .flexibleMode
    /// Whether the host encodes the composite a second time, smaller, for participants whose
    /// links cannot carry what the rest can (``SimulcastAllocator``): they get the full frame
    /// rate at the size their link affords, and the first encode follows the others. It
    /// costs the host a second encode while anyone gets it (at most the small picture's
    /// price). With temporal layers as well, it goes only to links too weak for the first
    /// encode's base layer; the layers serve the links between.
    public var simulcast: Bool
    /// The largest datagram sent, SRTP tag included.
    public var maximumPacketSize: Int
    /// RTP sequence numbers, timestamp offsets and transport-wide sequence numbers start from it.
    public var seed: UInt64
    /// The composite video's SSRC.
    public var videoSSRC: UInt32
    /// The composite's retransmission SSRC.
    public var rtxSSRC: UInt32
    /// The SSRC of the audio stream each participant receives (each has its own sequence).
    public var audioSSRC: UInt32
    /// The composite video's payload type.
    public var videoPayloadType: UInt8
    /// The retransmission payload type.
    public var rtxPayloadType: UInt8
    /// The Opus payload type.
    public var audioPayloadType: UInt8
    /// The transport-wide sequence number's one-byte extension id (transport-cc feeds each
    /// participant's bandwidth estimate).
    public var transportSequenceNumberID: UInt8
    /// Whether to probe each participant's path with padding bursts at the start, so its
    /// estimate reaches the path's capacity in a second or two.
    public var probesBandwidth: Bool
    /// Whether composite packets leave each participant's transport at 2.5 × its estimate
    /// (``Pacer``) rather than each frame as one burst; retransmissions are paced ahead of
    /// the video, audio and probes never held. Off here, on in every meeting's host (see
    /// ``SendPipelineConfiguration/paces``).
    public var paces: Bool
    /// The temporal layers the composite is encoded with: ``temporalLayers`` for VP8 and VP9
    /// (VP9's described as ``vp9LayerSignalling`` says), one for H.264.
    public var effectiveTemporalLayers: Int { codec == .vp8 || codec == .vp9 ? min(max(temporalLayers, 1), 3) : 1 }
    /// How long between sender reports to each participant.
    public var reportInterval: TimeDelta
    /// The CNAME in the host's SDES.
    public var cname: String
    /// How the host's clock maps to NTP time in sender reports.
    public var ntpClock: NTPClockMapping
    /// Packets of the composite remembered for retransmission.
    public var historyCapacity: Int
    /// The mixer's settings (speaking detection, limiter, most participants).
    public var mixer: AudioMixerConfiguration

    /// A configuration with these values; every one has a default suited to a meeting host.
    public init(codec: Codec = .vp8, width: Int = 1280, height: Int = 720, frameRate: Double = 30,
                layout: LayoutKind = .grid(), maximumBitrate: Int = 1_500_000, minimumBitrate: Int = 150_000,
                startBitrate: Int? = nil, audioBitrate: Int = 32_000, audioFrameDuration: Int = 20,
                keyframeRequestInterval: TimeDelta = .milliseconds(500), placeholderTimeout: TimeDelta = .seconds(1),
                audioTimeout: TimeDelta = .milliseconds(300),
                speed: Int = -8, threads: Int = 1, allowsFrameDropping: Bool = true, adaptsResolution: Bool = true, requestsSlotBitrates: Bool = true,
                temporalLayers: Int = 1, simulcast: Bool = true, maximumPacketSize: Int = 1200,
                seed: UInt64 = 1, videoSSRC: UInt32 = 0x4000_0001, rtxSSRC: UInt32 = 0x4000_0002,
                audioSSRC: UInt32 = 0x5000_0001, videoPayloadType: UInt8 = 96, rtxPayloadType: UInt8 = 97,
                audioPayloadType: UInt8 = 111, transportSequenceNumberID: UInt8 = 3, probesBandwidth: Bool = true, paces: Bool = false,
                reportInterval: TimeDelta = .seconds(1), cname: String = "confer-host",
                ntpClock: NTPClockMapping = NTPClockMapping(unixTimeAtZero: .seconds(1_700_000_000)),
                historyCapacity: Int = 1024, mixer: AudioMixerConfiguration = AudioMixerConfiguration()) {
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.layout = layout
        self.maximumBitrate = maximumBitrate
        self.minimumBitrate = minimumBitrate
        self.startBitrate = startBitrate
        self.audioBitrate = audioBitrate
        self.audioFrameDuration = audioFrameDuration
        self.keyframeRequestInterval = keyframeRequestInterval
        self.placeholderTimeout = placeholderTimeout
        self.audioTimeout = audioTimeout
        self.speed = speed
        self.threads = threads
        self.allowsFrameDropping = allowsFrameDropping
        self.adaptsResolution = adaptsResolution
        self.requestsSlotBitrates = requestsSlotBitrates
        self.temporalLayers = temporalLayers
        self.simulcast = simulcast
        self.maximumPacketSize = maximumPacketSize
        self.seed = seed
        self.videoSSRC = videoSSRC
        self.rtxSSRC = rtxSSRC
        self.audioSSRC = audioSSRC
        self.videoPayloadType = videoPayloadType
        self.rtxPayloadType = rtxPayloadType
        self.audioPayloadType = audioPayloadType
        self.transportSequenceNumberID = transportSequenceNumberID
        self.probesBandwidth = probesBandwidth
        self.paces = paces
        self.reportInterval = reportInterval
        self.cname = cname
        self.ntpClock = ntpClock
        self.historyCapacity = historyCapacity
        self.mixer = mixer
    }

    /// The composite bitrate before any estimate: ``startBitrate``, or the lesser of the
    /// maximum and 300 kbit/s, within the bounds.
    public var effectiveStartBitrate: Int {
        min(max(startBitrate ?? min(maximumBitrate, 300_000), minimumBitrate), maximumBitrate)
    }
}

extension HostPipelineConfiguration {
    /// What a participant configures its ``ReceivePipeline`` with to receive a host with this
    /// configuration: the composite's codec and payload types (with RTX), the Opus payload
    /// type and the transport-wide sequence number's extension id. Set its `srtpKey` to the
    /// participant's downlink key. A participant in another process derives it from the
    /// configuration alone, without a host instance.
    public var participantReceiveConfiguration: ReceivePipelineConfiguration {
        ReceivePipelineConfiguration(
            video: .init(codec: codec, payloadType: videoPayloadType, rtxPayloadType: rtxPayloadType),
            audio: .init(payloadType: audioPayloadType),
            transportSequenceNumberID: transportSequenceNumberID)
    }
}

/// How one participant is connected to a ``HostPipeline``.
///
/// Two keys, one per direction: the uplink key (in ``receive``) is the one the
/// participant's ``SendPipeline`` protects its media and sender reports with, and the one
/// the host's receive chain uses for that participant, feedback included; the downlink key
/// (``srtpKey``) protects what the host sends the participant and the participant's
/// feedback about it, as the participant's ``ReceivePipeline`` uses it.
public struct HostParticipantConfiguration: Sendable {
    /// What the participant sends the host: payload types, codec, jitter buffers, the uplink key.
    public var receive: ReceivePipelineConfiguration
    /// The key for host → participant (RTP and RTCP), nil for plain RTP.
    public var srtpKey: SRTPMasterKey?
    /// Whether the participant can be reached from the start. False for one whose address
    /// has not consented yet (a live host waits for that, ConferNet's `MediaConsent`): it is
    /// received and shown, but sent nothing, and what it is sent (its estimate, probes and
    /// first keyframe) starts at ``HostPipeline/participantBecameReachable(_:at:)``. Sending
    /// into nowhere meanwhile would read as loss to its estimate, and a join keyframe would
    /// go nowhere and hold back, by the keyframe throttle, the one it needs.
    public var isReachable = true

    /// A participant sending what `receive` describes, receiving with `srtpKey`.
    public init(receive: ReceivePipelineConfiguration, srtpKey: SRTPMasterKey? = nil) {
        self.receive = receive
        self.srtpKey = srtpKey
    }
}
