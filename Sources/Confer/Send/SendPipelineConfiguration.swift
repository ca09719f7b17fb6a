public import ConferMedia
public import ConferCodecs
public import ConferRTP
public import ConferSRTP

/// What a ``SendPipeline`` sends and how.
///
/// A pipeline sends up to one video stream (with its RFC 4588 retransmission stream) and
/// one Opus stream on one transport: every RTP packet carries a transport-wide sequence
/// number so the receiver's transport-cc feedback drives one congestion controller for
/// both. RTP and RTCP share the transport (RFC 5761 multiplexing).
public struct SendPipelineConfiguration: Sendable {
    /// The video stream.
    public struct Video: Sendable {
        /// VP8, VP9 or H.264.
        public var codec: Codec
        /// Picture width; frames handed to the pipeline must have this size.
        public var width: Int
        /// Picture height.
        public var height: Int
        /// Frames per second the pipeline is fed (the encoder's rate control assumes it).
        public var frameRate: Double
        /// The bitrate never exceeded, in bits per second.
        public var maximumBitrate: Int
        /// The bitrate to start at, in bits per second; nil starts at the lesser of the
        /// maximum and 300 kbit/s (libwebrtc's default), and probing finds the rest.
        public var startBitrate: Int?
        /// The bitrate the congestion controller never goes below, in bits per second.
        public var minimumBitrate: Int
        /// libvpx `cpu-used` or the x264 preset index (see ``VideoEncoderSettings/speed``).
        public var speed: Int
        /// Encoder threads.
        public var threads: Int
        /// Frames between periodic keyframes (0: only at the start and on request).
        public var keyframeInterval: Int
        /// Whether the encoder's rate control may skip frames to hold the bitrate.
        public var allowsFrameDropping: Bool
        /// Whether the picture is encoded smaller than captured while the bitrate is too low
        /// for its size at full frame rate (``ScalingVideoEncoder``): under a weak uplink, or
        /// when the receiver's REMB asks for less (a host showing it in a small tile).
        public var adaptsResolution: Bool
        /// The media stream's SSRC.
        public var ssrc: UInt32
        /// The media stream's payload type.
        public var payloadType: UInt8
        /// The retransmission stream's SSRC (RFC 4588).
        public var rtxSSRC: UInt32
        /// The retransmission stream's payload type.
        public var rtxPayloadType: UInt8
        /// Keyframe requests (PLI, FIR) closer together than this after a keyframe are
        /// deferred until the interval has passed, so a burst of requests costs one keyframe.
        public var minimumKeyframeInterval: TimeDelta
        /// Packets remembered for retransmission.
        public var historyCapacity: Int
        /// Whether the pipeline encodes: false when the app hands it frames already encoded
        /// (``SendPipeline/sendEncodedVideo(_:at:)``, a file or a relay sent as it is). Then
        /// no encoder is made, the picture size is not checked, and keyframe requests and
        /// bitrate changes are counted but cannot be acted on.
        public var encodesFrames: Bool

        /// The bitrate the stream starts at: ``startBitrate``, or the lesser of the
        /// maximum and 300 kbit/s, never below the minimum.
        public var effectiveStartBitrate: Int {
            min(max(startBitrate ?? min(maximumBitrate, 300_000), minimumBitrate), maximumBitrate)
        }

        /// A `codec` stream of `width` × `height` at `frameRate`, at most `maximumBitrate`.
        public init(codec: Codec, width: Int, height: Int, frameRate: Double = 30, maximumBitrate: Int = 800_000,
                    startBitrate: Int? = nil, minimumBitrate: Int = 50_000, speed: Int = 8, threads: Int = 1, keyframeInterval: Int = 0,
                    allowsFrameDropping: Bool = true, adaptsResolution: Bool = true, ssrc: UInt32 = 0x1000_0001, payloadType: UInt8 = 96,
                    rtxSSRC: UInt32 = 0x1000_0002, rtxPayloadType: UInt8 = 97,
                    minimumKeyframeInterval: TimeDelta = .milliseconds(300), historyCapacity: Int = 1024,
                    encodesFrames: Bool = true) {
            self.codec = codec
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.maximumBitrate = maximumBitrate
            self.startBitrate = startBitrate
            self.minimumBitrate = minimumBitrate
            self.speed = speed
            self.threads = threads
            self.keyframeInterval = keyframeInterval
            self.allowsFrameDropping = allowsFrameDropping
            self.adaptsResolution = adaptsResolution
            self.ssrc = ssrc
            self.payloadType = payloadType
            self.rtxSSRC = rtxSSRC
            self.rtxPayloadType = rtxPayloadType
            self.minimumKeyframeInterval = minimumKeyframeInterval
            self.historyCapacity = historyCapacity
            self.encodesFrames = encodesFrames
        }
    }

    /// The Opus stream.
    public struct Audio: Sendable {
        /// Encoder settings (channels, bitrate, frame duration, in-band FEC, DTX).
        public var settings: AudioEncoderSettings
        /// The stream's SSRC.
        public var ssrc: UInt32
        /// The stream's payload type.
        public var payloadType: UInt8

        /// An Opus stream with `settings`.
        public init(settings: AudioEncoderSettings = AudioEncoderSettings(), ssrc: UInt32 = 0x2000_0001,
                    payloadType: UInt8 = 111) {
            self.settings = settings
            self.ssrc = ssrc
            self.payloadType = payloadType
        }
    }

    /// The video stream, if any.
    public var video: Video?
    /// The audio stream, if any.
    public var audio: Audio?
    /// The largest datagram sent, SRTP tag included.
    public var maximumPacketSize: Int
    /// The one-byte header extension id of the transport-wide sequence number; nil sends
    /// none (and the congestion controller then has only REMB and receiver reports).
    public var transportSequenceNumberID: UInt8?
    /// The one-byte header extension id of abs-send-time (for a receive-side estimator); nil sends none.
    public var absoluteSendTimeID: UInt8?
    /// Whether the bandwidth estimate sets the video bitrate (otherwise it stays at the start bitrate).
    public var adaptsBitrate: Bool
    /// Whether to send probe bursts (padding on the RTX stream) at the start, so the
    /// estimate reaches the path's capacity in a second or two (needs transport-cc and video).
    public var probesBandwidth: Bool
    /// Whether video packets leave at 2.5 × the bandwidth estimate (``Pacer``) rather than
    /// each frame as one burst, which overflows a small bottleneck queue on keyframes.
    /// Retransmissions are paced too, ahead of the video waiting; audio and probes are
    /// never held. Needs ``adaptsBitrate``, and a caller that polls at
    /// ``SendPipeline/nextPollTime``: so off here, and on in every endpoint that runs such a
    /// loop (a meeting's members and host, live and simulated, calls, `confer send` and
    /// `confer simulate`), as libwebrtc always paces. It costs a keyframe some delay on a
    /// clean path (p99 45 → 70 ms in `confer simulate`) and spares a small bottleneck queue
    /// its bursts (a member behind 300 kbit/s in a 9-member `confer meeting`: 56 freezes
    /// in four runs unpaced, 16 paced).
    public var paces: Bool
    /// How long between RTCP sender reports.
    public var reportInterval: TimeDelta
    /// The CNAME in SDES.
    public var cname: String
    /// How the pipeline's clock maps to NTP time in sender reports.
    public var ntpClock: NTPClockMapping
    /// SRTP/SRTCP protection, if any.
    public var srtpKey: SRTPMasterKey?
    /// The first sequence number and timestamp offsets (RFC 3550 wants them random).
    public var seed: UInt64

    /// A configuration sending `video` and `audio` with the standard extension ids
    /// (``RTPExtensionMap/standard``): transport-wide sequence number 3, no abs-send-time.
    public init(video: Video? = nil, audio: Audio? = nil, maximumPacketSize: Int = 1200,
                transportSequenceNumberID: UInt8? = 3, absoluteSendTimeID: UInt8? = nil, adaptsBitrate: Bool = true, probesBandwidth: Bool = true, paces: Bool = false,
                reportInterval: TimeDelta = .seconds(1), cname: String = "confer",
                ntpClock: NTPClockMapping = NTPClockMapping(unixTimeAtZero: .seconds(1_700_000_000)),
                srtpKey: SRTPMasterKey? = nil, seed: UInt64 = 1) {
        self.video = video
        self.audio = audio
        self.maximumPacketSize = maximumPacketSize
        self.transportSequenceNumberID = transportSequenceNumberID
        self.absoluteSendTimeID = absoluteSendTimeID
        self.adaptsBitrate = adaptsBitrate
        self.probesBandwidth = probesBandwidth
        self.paces = paces
        self.reportInterval = reportInterval
        self.cname = cname
        self.ntpClock = ntpClock
        self.srtpKey = srtpKey
        self.seed = seed
    }
}
