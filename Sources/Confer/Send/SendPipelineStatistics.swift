public import ConferCongestion

/// What a ``SendPipeline``'s video stream did, with the W3C `RTCOutboundRtpStreamStats`
/// names where one exists.
public struct VideoSendStatistics: Sendable, Hashable, Codable {
    /// Frames handed to the pipeline.
    public var framesCaptured = 0
    /// Frames the encoder produced.
    public var framesEncoded = 0
    /// Frames the encoder's rate control skipped.
    public var framesDroppedByEncoder = 0
    /// Frames packetized and sent.
    public var framesSent = 0
    /// Keyframes produced (or sent, for frames handed over encoded).
    public var keyFramesEncoded = 0
    /// Keyframes produced because a PLI or FIR asked for one.
    public var keyFramesOnRequest = 0
    /// Compressed bytes produced.
    public var bytesEncoded = 0
    /// Media packets sent (RTX not included).
    public var packetsSent = 0
    /// Bytes of media packets sent, headers included, SRTP not.
    public var bytesSent = 0
    /// RTX packets sent.
    public var retransmittedPacketsSent = 0
    /// Bytes of RTX packets sent.
    public var retransmittedBytesSent = 0
    /// Retransmissions asked for and not sent because the last half second's already
    /// reached the target bitrate (``RetransmissionRateLimiter``).
    public var retransmissionsOverBudget = 0
    /// Video and RTX packets that waited for the pacer (0 when the pipeline does not pace).
    public var packetsPaced = 0
    /// Packets sent at once because the pacer's queue was full.
    public var pacerOverflows = 0
    /// Padding-only packets sent on the RTX stream to probe the path.
    public var paddingPacketsSent = 0
    /// Bytes of those packets.
    public var paddingBytesSent = 0
    /// NACK messages received.
    public var nackCount = 0
    /// PLI messages received.
    public var pliCount = 0
    /// New FIR commands received.
    public var firCount = 0
    /// The bitrate last asked of the encoder, in bits per second.
    public var targetBitrate = 0
    /// How many times the encoder's bitrate was changed.
    public var bitrateChanges = 0
    /// The width pictures are encoded at now (the captured width, or less while the bitrate is low).
    public var encodedWidth = 0
    /// The height pictures are encoded at now.
    public var encodedHeight = 0
    /// How many times the encoded size changed with the bitrate.
    public var sizeChanges = 0
    /// Frames left out to halve the frame rate at the lowest bitrates (not counted as dropped).
    public var framesSkippedForFrameRate = 0
    /// The frame rate encoded now: the stream's, or half of it when the bitrate is below
    /// what a full-rate thumbnail needs (``VideoResolutionLadder``).
    public var encodedFrameRate = 0.0

    /// All counters at zero.
    public init() {}
}

/// What a ``SendPipeline``'s audio stream did.
public struct AudioSendStatistics: Sendable, Hashable, Codable {
    /// Opus frames encoded and sent.
    public var framesEncoded = 0
    /// RTP packets sent.
    public var packetsSent = 0
    /// Bytes of RTP packets sent, headers included, SRTP not.
    public var bytesSent = 0

    /// All counters at zero.
    public init() {}
}

/// A snapshot of a ``SendPipeline``.
public struct SendPipelineStatistics: Sendable, Codable, Equatable {
    /// The video stream, if any.
    public var video: VideoSendStatistics?
    /// The audio stream, if any.
    public var audio: AudioSendStatistics?
    /// RTP datagrams sent, media and RTX, of every stream.
    public var rtpPacketsSent: Int
    /// Bytes of RTP datagrams sent, SRTP included.
    public var rtpBytesSent: Int
    /// RTCP compounds sent.
    public var rtcpPacketsSent: Int
    /// RTCP compounds received.
    public var rtcpPacketsReceived: Int
    /// RTCP compounds that did not parse or authenticate (dropped).
    public var rtcpPacketsMalformed: Int
    /// Packets that could not be written or protected (never expected).
    public var sendFailures: Int
    /// The round-trip time last measured, in seconds.
    public var roundTripTime: Double?
    /// The congestion controller's state.
    public var bandwidth: BandwidthEstimatorSnapshot
    /// Packets of ours the receiver says it lost (RTCP cumulative loss, summed over our streams).
    public var packetsLostReportedByReceiver = 0
}
