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
}

/// Reception counters of one SSRC, RFC 3550 style.
public struct LiveStreamStatistics: Codable, Sendable, Equatable {
    /// The source.
    public var ssrc: UInt32
    /// Packets counted as received (duplicates included, as RFC 3550 A.3 counts them).
    public var packetsReceived: Int64
    /// Packets expected from the sequence numbers seen.
    public var packetsExpected: Int64
    /// Expected minus received; negative when duplicates outnumber losses.
    public var cumulativeLost: Int64
    /// Repeats of a packet already received.
    public var duplicates: Int64
    /// Packets that arrived after a higher sequence number.
    public var outOfOrder: Int64
    /// The interarrival jitter estimate in milliseconds.
    public var jitterMilliseconds: Double
}

/// What `confer receive` (``LiveReceiver``) did.
public struct LiveReceiveReport: Codable, Sendable, Equatable {
    /// The address listened on, `HOST:PORT`.
    public var listen: String
    /// The output file.
    public var output: String
    /// The codec expected.
    public var codec: String
    /// The payload type accepted.
    public var payloadType: Int
    /// The SRTP profile, or nil for plain RTP.
    public var srtpProfile: String?
    /// Why reception ended: "duration", "idle", "bye" (the sender said goodbye) or "cancelled".
    public var endReason: String
    /// Whether the stream went through the jitter buffers (``LiveReceiverOptions/usesJitterBuffer``);
    /// the frame-assembly counters below are then filled from the jitter buffer's, and
    /// ``pipeline`` has the rest.
    public var jitterBuffer: Bool

    /// Datagrams received, whatever they held.
    public var datagrams: Int
    /// Bytes in those datagrams.
    public var bytes: Int
    /// Datagrams that were RTCP (multiplexed on the RTP port) rather than RTP.
    public var rtcpPackets: Int
    /// Datagrams that are not RTP: shorter than a header, another version, a header that runs past its end.
    public var malformed: Int
    /// SRTP packets dropped because their authentication tag did not verify.
    public var srtpAuthenticationFailures: Int
    /// SRTP packets dropped as replays.
    public var srtpReplays: Int
    /// SRTP packets dropped for any other reason (too short to carry a tag, …).
    public var srtpOtherFailures: Int
    /// RTP packets of another payload type, ignored.
    public var wrongPayloadType: Int
    /// RTP packets of the expected payload type from another SSRC than the one being received.
    public var otherSSRC: Int
    /// RTP packets given to frame assembly.
    public var packetsAccepted: Int
    /// RTP payload bytes given to frame assembly.
    public var payloadBytes: Int

    /// Packets lost (RFC 3550 cumulative: expected − received) on the stream received.
    public var lost: Int64
    /// Duplicate packets on that stream.
    public var duplicates: Int64
    /// Packets that arrived out of order on that stream.
    public var outOfOrder: Int64
    /// Interarrival jitter on that stream, in milliseconds.
    public var jitterMilliseconds: Double
    /// Packets frame assembly dropped: a payload its depacketizer rejected.
    public var malformedPayloads: Int
    /// Packets that arrived after their frame had been emitted (played) or given up.
    public var latePackets: Int

    /// Frames reassembled from packets (audio: packets).
    public var framesAssembled: Int
    /// Frames given up on because a packet was missing (frame assembly; the jitter buffer
    /// counts what it drops in ``ReceivePipelineStatistics/video``'s `framesDropped`).
    public var framesIncomplete: Int
    /// Frames whose packets were all there but did not depacketize.
    public var framesMalformed: Int
    /// Frames the decoder turned into pictures or audio (video: pictures written).
    public var framesDecoded: Int
    /// Frames the decoder rejected or produced nothing for.
    public var framesNotDecoded: Int
    /// Frames written to the output (decoded pictures, or received frames stored as they
    /// are; audio from the jitter buffer: 10 ms blocks).
    public var framesWritten: Int
    /// Audio sample frames (per channel) written, concealment included.
    public var samplesWritten: Int
    /// Audio sample frames synthesized by Opus concealment for lost packets.
    public var samplesConcealed: Int
    /// Picture width of the video written (0 for audio or nothing written).
    public var width: Int
    /// Picture height of the video written.
    public var height: Int
    /// Bytes in the output file.
    public var outputBytes: Int
    /// Wall-clock seconds from listening to the end.
    public var wallSeconds: Double
    /// Every SSRC heard with the expected payload type, the one received first (with the
    /// jitter buffer: the source received last).
    public var streams: [LiveStreamStatistics]

    /// The receive pipeline's counters with the W3C `RTCInboundRtpStreamStats` of the video
    /// (framesDecoded, framesDropped, freezeCount, totalFreezesDuration, jitterBufferDelay,
    /// nackCount, pliCount, …) or audio stream; nil without the jitter buffer.
    public var pipeline: ReceivePipelineStatistics?
    /// Where feedback went: the address the media came from (nil when none was sent).
    public var feedbackDestination: String?
    /// RTCP datagrams sent back.
    public var feedbackDatagramsSent: Int
    /// RTCP datagrams the socket refused to send.
    public var feedbackSendFailures: Int
}
