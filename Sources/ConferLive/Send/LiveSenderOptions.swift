public import ConferMedia
public import ConferNet
public import ConferSRTP

/// What `confer send` sends and how.
public struct LiveSenderOptions: Sendable {
    /// The codec on the wire.
    public var codec: Codec
    /// Where RTP goes. RTCP goes to the port above until the receiver's own RTCP comes
    /// from this address — it multiplexes (RFC 5761) — and then here too; with
    /// ``rtcpMux`` it goes here from the start.
    public var destination: UDPAddress
    /// Whether RTCP shares the RTP port from the first packet (RFC 5761, `a=rtcp-mux` in the
    /// SDP), as WebRTC peers and `confer receive` expect; otherwise the port above (RFC 3550).
    public var rtcpMux: Bool
    /// The RTP payload type; nil picks ``LiveSender/defaultPayloadType(for:)``.
    public var payloadType: UInt8?
    /// The SSRC; nil draws one at random (RFC 3550 §8).
    public var ssrc: UInt32?
    /// The largest UDP payload sent: RTP header, payload and SRTP tag.
    public var mtu: Int
    /// Encoder bitrate in kbit/s when the input is encoded here; nil picks one for the
    /// picture size. The stream starts at it and congestion control (transport-cc
    /// feedback, receiver reports) may lower it, never raise it above.
    public var bitrateKbps: Int?
    /// The SRTP key; nil sends plain RTP.
    public var srtpKey: SRTPMasterKey?
    /// Where to write the stream's SDP before the first packet, if anywhere.
    public var sdpPath: String?
    /// Whether to start the file again at its end (until ``maxDuration``).
    public var loops: Bool
    /// Stop after this many seconds of media.
    public var maxDuration: Double?
    /// Whether to send RTCP (sender report and CNAME about once a second, BYE at the end).
    /// RTCP from the receiver is read and answered either way.
    public var sendsRTCP: Bool
    /// Whether to send each frame when its time comes on the clock (real time); false sends
    /// as fast as the socket takes packets, for tests and tools.
    public var isPaced: Bool
    /// The time over which a video frame's packets are spread, rather than sent in one burst.
    public var packetSpread: TimeDelta
    /// Whether video packets leave through the pacer, at a multiple of the congestion
    /// controller's target (``SendPipelineConfiguration/paces``), instead of a frame at a
    /// time. On by default; a ``packetSpread`` above zero spaces the packets instead, and a
    /// sender that is not ``isPaced`` (as fast as the socket takes packets) does not pace.
    public var paces: Bool
    /// Whether the encoder may skip frames to hold the congestion controller's target (and
    /// halve the frame rate below what a thumbnail needs), as a camera sender does; by
    /// default every frame read is sent, so frames out match frames in.
    public var dropsFrames: Bool
    /// Where the encoder's bitrate starts, in kbit/s, when below ``bitrateKbps``: the sender
    /// then probes upward (padding bursts on the RTX stream, measured through the
    /// receiver's transport-cc feedback) instead of starting at the ceiling. Nil starts at
    /// the ceiling and does not probe.
    public var startBitrateKbps: Int?
    /// Encoder threads.
    public var threads: Int
    /// Seconds between keyframes when the input is encoded here (0: only the first).
    public var keyframeIntervalSeconds: Double
    /// The RTCP CNAME.
    public var cname: String
    /// Seeds the random SSRC, sequence number and timestamp origin; nil uses the system's generator.
    public var randomSeed: UInt64?
    /// Seconds to keep answering the receiver's feedback (retransmitting what it asks for)
    /// after the last frame, when it sends any, before saying goodbye.
    public var linger: Double

    /// Options to send `codec` to `destination`, with defaults for everything else.
    public init(codec: Codec, destination: UDPAddress, payloadType: UInt8? = nil, ssrc: UInt32? = nil, mtu: Int = 1200,
                bitrateKbps: Int? = nil, srtpKey: SRTPMasterKey? = nil, sdpPath: String? = nil, loops: Bool = false,
                maxDuration: Double? = nil, sendsRTCP: Bool = true, isPaced: Bool = true, packetSpread: TimeDelta = .zero,
                paces: Bool = true, dropsFrames: Bool = false, startBitrateKbps: Int? = nil, threads: Int = 1,
                keyframeIntervalSeconds: Double = 2, cname: String = "confer", randomSeed: UInt64? = nil,
                linger: Double = 0.3, rtcpMux: Bool = false) {
        self.codec = codec
        self.destination = destination
        self.rtcpMux = rtcpMux
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.mtu = mtu
        self.bitrateKbps = bitrateKbps
        self.srtpKey = srtpKey
        self.sdpPath = sdpPath
        self.loops = loops
        self.maxDuration = maxDuration
        self.sendsRTCP = sendsRTCP
        self.isPaced = isPaced
        self.packetSpread = packetSpread
        self.paces = paces
        self.dropsFrames = dropsFrames
        self.startBitrateKbps = startBitrateKbps
        self.threads = threads
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        self.cname = cname
        self.randomSeed = randomSeed
        self.linger = linger
    }

    /// The payload type in use.
    public var effectivePayloadType: UInt8 { payloadType ?? LiveSender.defaultPayloadType(for: codec) }
}
