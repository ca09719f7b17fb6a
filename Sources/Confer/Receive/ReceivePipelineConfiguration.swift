public import ConferMedia
public import ConferRTP
public import ConferSRTP
public import ConferJitter

/// What a ``ReceivePipeline`` expects to receive and how it feeds back.
public struct ReceivePipelineConfiguration: Sendable {
    /// The video stream.
    public struct Video: Sendable {
        /// VP8, VP9 or H.264.
        public var codec: Codec
        /// The media stream's payload type.
        public var payloadType: UInt8
        /// The retransmission stream's payload type (RFC 4588).
        public var rtxPayloadType: UInt8
        /// Jitter buffer settings: NACK on or off, delay bounds, keyframe requests.
        public var jitterBuffer: VideoJitterBufferConfiguration
        /// Decoder threads.
        public var decoderThreads: Int

        /// A `codec` stream on payload type `payloadType`, its retransmissions on `rtxPayloadType`.
        public init(codec: Codec, payloadType: UInt8 = 96, rtxPayloadType: UInt8 = 97,
                    jitterBuffer: VideoJitterBufferConfiguration = VideoJitterBufferConfiguration(), decoderThreads: Int = 1) {
            self.codec = codec
            self.payloadType = payloadType
            self.rtxPayloadType = rtxPayloadType
            self.jitterBuffer = jitterBuffer
            self.decoderThreads = decoderThreads
        }
    }

    /// The Opus stream.
    public struct Audio: Sendable {
        /// The stream's payload type.
        public var payloadType: UInt8
        /// Jitter buffer settings (channels, delay bounds).
        public var jitterBuffer: AudioJitterBufferConfiguration

        /// An Opus stream on `payloadType`.
        public init(payloadType: UInt8 = 111, jitterBuffer: AudioJitterBufferConfiguration = AudioJitterBufferConfiguration()) {
            self.payloadType = payloadType
            self.jitterBuffer = jitterBuffer
        }
    }

    /// The video stream, if any.
    public var video: Video?
    /// The audio stream, if any.
    public var audio: Audio?
    /// The one-byte header extension id of the transport-wide sequence number; nil sends no
    /// transport-cc feedback.
    public var transportSequenceNumberID: UInt8?
    /// How often transport-cc feedback goes out while packets arrive (libwebrtc: 50–250 ms).
    public var feedbackInterval: TimeDelta
    /// How often receiver reports go out.
    public var reportInterval: TimeDelta
    /// The receiver's own SSRC, the sender of its RTCP.
    public var ssrc: UInt32
    /// The CNAME in SDES.
    public var cname: String
    /// How the pipeline's clock maps to NTP time (for the LSR/DLSR of receiver reports).
    public var ntpClock: NTPClockMapping
    /// SRTP/SRTCP protection, if any: the same key protects both directions.
    public var srtpKey: SRTPMasterKey?
    /// Played out as a participant hears and sees it, or recorded.
    public var mode: ReceivePipelineMode

    /// A configuration receiving `video` and `audio`, feeding back transport-cc every 50 ms
    /// and receiver reports every second.
    public init(video: Video? = nil, audio: Audio? = nil, transportSequenceNumberID: UInt8? = 3,
                feedbackInterval: TimeDelta = .milliseconds(50), reportInterval: TimeDelta = .seconds(1),
                ssrc: UInt32 = 0x3000_0001, cname: String = "confer-receiver",
                ntpClock: NTPClockMapping = NTPClockMapping(unixTimeAtZero: .seconds(1_700_000_000)),
                srtpKey: SRTPMasterKey? = nil, mode: ReceivePipelineMode = .playout) {
        self.video = video
        self.audio = audio
        self.transportSequenceNumberID = transportSequenceNumberID
        self.feedbackInterval = feedbackInterval
        self.reportInterval = reportInterval
        self.ssrc = ssrc
        self.cname = cname
        self.ntpClock = ntpClock
        self.srtpKey = srtpKey
        self.mode = mode
    }
}
