public import Confer

/// What `confer send` (``LiveSender``) did.
public struct LiveSendReport: Codable, Sendable, Equatable {
    /// The input file.
    public var input: String
    /// Where the packets went, `HOST:PORT`.
    public var destination: String
    /// The codec sent.
    public var codec: String
    /// The RTP payload type.
    public var payloadType: Int
    /// The stream's SSRC.
    public var ssrc: UInt32
    /// The SRTP profile, or nil for plain RTP.
    public var srtpProfile: String?
    /// Whether the input was sent as it is (IVF, Annex-B) rather than encoded here.
    public var passThrough: Bool
    /// Frames (video pictures or Opus packets) sent.
    public var frames: Int
    /// Keyframes among them (video).
    public var keyframes: Int
    /// RTP media packets sent (retransmissions and probes not included).
    public var packets: Int
    /// UDP payload bytes of those packets: RTP headers (with their extensions), payloads and SRTP tags.
    public var bytes: Int
    /// RTP payload bytes sent (what an RTCP sender report counts).
    public var payloadBytes: Int
    /// RTCP compound packets sent: to the port above the RTP port, or to the RTP port once
    /// the receiver was heard multiplexing.
    public var rtcpPackets: Int
    /// Media seconds sent.
    public var mediaSeconds: Double
    /// Wall-clock seconds the job took.
    public var wallSeconds: Double
    /// The SDP file written, if any.
    public var sdpPath: String?

    /// The SSRC retransmissions went out on (RFC 4588 RTX; video only).
    public var rtxSSRC: UInt32?
    /// RTCP compounds received from the receiver.
    public var rtcpPacketsReceived: Int
    /// Whether the receiver multiplexes RTCP on the RTP port (it sent RTCP from there), so
    /// sender reports went there too.
    public var rtcpMultiplexed: Bool
    /// NACK messages received.
    public var nacksReceived: Int
    /// Packets retransmitted in answer (RTX).
    public var retransmissionsSent: Int
    /// Keyframe requests (PLI, new FIR) received.
    public var keyframeRequestsReceived: Int
    /// Keyframes encoded because of them (0 when the input is sent as it is).
    public var keyframesOnRequest: Int
    /// The bitrate congestion control allowed the video at the end, in bits per second (nil for audio).
    public var finalTargetBitrate: Int?
    /// The round-trip time last measured, in seconds (nil when the receiver sent no feedback).
    public var roundTripTime: Double?
    /// The send pipeline's counters (W3C `RTCOutboundRtpStreamStats` names where one exists).
    public var pipeline: SendPipelineStatistics
    /// Whether video packets were paced (``LiveSenderOptions/paces``).
    public var paced: Bool
    /// Each whole second of media sent: the congestion controller's target at its end and
    /// what left in it (video, retransmissions and probe padding), so a ramp-up or a cut
    /// can be read second by second. Empty for audio.
    public var timeline: [LiveSendSecond]
}

/// One second of a live send: the target bitrate at its end and the bitrate sent during it.
public struct LiveSendSecond: Sendable, Codable, Equatable {
    /// The second of media, from 0.
    public var second: Int
    /// The congestion controller's target at the end of the second, in kbit/s.
    public var targetKbps: Int
    /// RTP sent during the second (media, retransmissions, padding), headers included, in kbit/s.
    public var sentKbps: Int
}
