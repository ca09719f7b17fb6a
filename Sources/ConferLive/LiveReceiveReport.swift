public import Confer

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
    /// Whether the stream was played out through the jitter buffers
    /// (``LiveReceiverOptions/usesJitterBuffer``) rather than recorded; either way the
    /// frame-assembly counters below are filled from the receive pipeline's, and ``pipeline``
    /// has the rest.
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
    /// Frames given up on because a packet was missing. Always 0 since both modes assemble
    /// in the jitter buffer, which does not count incomplete frames (they are a gap in
    /// ``ReceivePipelineStatistics/video``'s `packetsLost`); kept so reports keep their shape.
    public var framesIncomplete: Int
    /// Frames whose packets were all there but did not depacketize. Always 0, as
    /// ``framesIncomplete``: the jitter buffer counts them in `framesDropped`.
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
    /// The stream received: the source received last (packets of another SSRC are counted
    /// in ``otherSSRC``).
    public var streams: [LiveStreamStatistics]

    /// The receive pipeline's counters with the W3C `RTCInboundRtpStreamStats` of the video
    /// (framesDecoded, framesDropped, freezeCount, totalFreezesDuration, jitterBufferDelay,
    /// nackCount, pliCount, …) or audio stream.
    public var pipeline: ReceivePipelineStatistics?
    /// Where feedback went: the address the media came from (nil when none was sent).
    public var feedbackDestination: String?
    /// RTCP datagrams sent back.
    public var feedbackDatagramsSent: Int
    /// RTCP datagrams the socket refused to send.
    public var feedbackSendFailures: Int
}
