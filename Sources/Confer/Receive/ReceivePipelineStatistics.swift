public import ConferMedia
public import ConferJitter
public import ConferSRTP

/// A picture a ``ReceivePipeline`` decoded, with when to show it.
public struct ReceivedVideoFrame: Sendable {
    /// The decoded picture.
    public var frame: VideoFrame
    /// When it is to be shown: the jitter buffer's render time, or the time it was decoded
    /// when that is later.
    public var renderTime: Timestamp
    /// The RTP timestamp it was sent with (the sender's media clock).
    public var rtpTimestamp: UInt32
    /// The SSRC it came on.
    public var ssrc: UInt32
    /// Whether it was a keyframe.
    public var isKeyframe: Bool

    /// A received frame with the given properties.
    public init(frame: VideoFrame, renderTime: Timestamp, rtpTimestamp: UInt32, ssrc: UInt32, isKeyframe: Bool) {
        self.frame = frame
        self.renderTime = renderTime
        self.rtpTimestamp = rtpTimestamp
        self.ssrc = ssrc
        self.isKeyframe = isKeyframe
    }
}

/// A snapshot of a ``ReceivePipeline``: the jitter buffers' W3C `RTCInboundRtpStreamStats`
/// counters and the pipeline's own.
public struct ReceivePipelineStatistics: Sendable, Codable, Equatable {
    /// The video stream (packetsReceived, packetsLost, jitter, framesDecoded, framesDropped,
    /// framesRendered, keyFramesDecoded, freezeCount, totalFreezesDuration, jitterBufferDelay,
    /// jitterBufferTargetDelay, jitterBufferEmittedCount, nackCount, pliCount, firCount, …).
    public var video: VideoReceiveStatistics?
    /// The audio stream (concealedSamples, insertedSamplesForDeceleration,
    /// removedSamplesForAcceleration, audioLevel, totalAudioEnergy, …).
    public var audio: AudioReceiveStatistics?
    /// Datagrams handed to the pipeline.
    public var datagramsReceived = 0
    /// Bytes of those datagrams.
    public var bytesReceived = 0
    /// RTP packets of a known stream (media and RTX).
    public var rtpPacketsReceived = 0
    /// RTX packets received (padding aside).
    public var retransmissionsReceived = 0
    /// Padding-only packets received on the RTX stream (bandwidth probes).
    public var paddingPacketsReceived = 0
    /// RTCP compounds received.
    public var rtcpPacketsReceived = 0
    /// Datagrams that did not authenticate or parse, or were of no configured stream (dropped):
    /// the sum of the three counters below and the SRTP failures.
    public var packetsDiscarded = 0
    /// Datagrams that are neither RTP nor RTCP: too short or long, another version, a
    /// header or an RTCP packet that runs past the end.
    public var malformedPackets = 0
    /// RTP packets of a payload type no stream is configured with.
    public var packetsOfUnknownPayloadType = 0
    /// RTP packets of a stream's payload type from another SSRC than the one followed, let
    /// go: of a source that never came in sequence (RFC 3550 A.1 probation), or beyond what
    /// is held for a validated one while the followed source is alive.
    public var packetsFromOtherSources = 0
    /// Packets held now while their SSRC is on probation (handed on if it is taken up).
    public var packetsOnProbation = 0
    /// The round-trip time to the sender in seconds, measured through RTCP XR (this end's
    /// RRTR, the sender's DLRR), once it has answered.
    public var roundTripTime: Double?
    /// XR round-trip measurements taken.
    public var roundTripTimesMeasured = 0
    /// RTCP BYE packets naming a stream being received.
    public var goodbyesReceived = 0
    /// Changes of the maximum bitrate asked of the sender (REMB sent at once).
    public var maximumBitrateRequests = 0
    /// SRTP and SRTCP counters of what came in (nil without a key).
    public var srtp: SRTPStats?
    /// Frames the decoder rejected.
    public var decoderFailures = 0
    /// Frames the decoder took without producing a picture (waiting for a keyframe, say).
    public var framesWithoutPicture = 0
    /// Transport-cc feedback messages sent.
    public var transportFeedbackSent = 0
    /// NACK messages sent.
    public var nacksSent = 0
    /// Keyframe requests (PLI or FIR) sent.
    public var keyframeRequestsSent = 0
    /// Receiver reports sent.
    public var receiverReportsSent = 0

    /// Nothing received yet.
    public init() {}
}
