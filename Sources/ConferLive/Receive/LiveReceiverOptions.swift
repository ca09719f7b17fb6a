public import ConferMedia
public import ConferNet
public import ConferSRTP
import ConferJobs

/// What `confer receive` listens for and where it writes.
public struct LiveReceiverOptions: Sendable {
    /// The address and port to listen on (port 0 picks a free one, reported through `ready`).
    public var listen: UDPAddress
    /// The codec expected.
    public var codec: Codec
    /// The output file: `.y4m` (decoded video), `.wav` or `.opus` (decoded audio), `.ivf`
    /// (VP8/VP9 frames as received) or `.h264` (H.264 access units as received).
    public var output: String
    /// The payload type accepted; nil picks ``LiveSender/defaultPayloadType(for:)``.
    public var payloadType: UInt8?
    /// The SRTP key; nil receives plain RTP.
    public var srtpKey: SRTPMasterKey?
    /// Stop this many seconds after listening starts.
    public var maxDuration: Double?
    /// Stop once no datagram has arrived for this many seconds (counted from the first one).
    public var idleTimeout: Double
    /// Whether the stream goes through the jitter buffers (``ReceivePipeline``): video
    /// rendered at its render time, audio played out 10 ms at a time, feedback sent back.
    /// False writes every frame as soon as it is assembled, with no playout timing and no
    /// feedback: a recorder, which keeps all audio in RTP time whatever the pace it came at.
    public var usesJitterBuffer: Bool
    /// Whether the jitter buffer asks for lost video packets again (NACK).
    public var nack: Bool
    /// Whether RTCP goes back to the sender (NACK, PLI, transport-cc, receiver reports);
    /// false also turns NACK off, as nothing would answer it.
    public var sendsFeedback: Bool
    /// The payload type of retransmissions (RFC 4588); nil picks ``LiveSender/defaultRTXPayloadType(for:)``.
    public var rtxPayloadType: UInt8?
    /// How many newer packets may arrive after a gap before the packet missing there is
    /// taken as lost (frame assembly without the jitter buffer waits that long for
    /// reordered packets).
    public var reorderWindow: Int
    /// Audio channels written (Opus decodes mono or stereo packets to either).
    public var channels: Int
    /// The frame rate written in a Y4M header (RTP carries none).
    public var frameRate: Double
    /// Decoder threads.
    public var threads: Int

    /// Options to receive `codec` on `listen` into `output`, with defaults for everything else.
    public init(listen: UDPAddress, codec: Codec, output: String, payloadType: UInt8? = nil, srtpKey: SRTPMasterKey? = nil,
                maxDuration: Double? = nil, idleTimeout: Double = 2, usesJitterBuffer: Bool = true, nack: Bool = true,
                sendsFeedback: Bool = true, rtxPayloadType: UInt8? = nil, reorderWindow: Int = 16, channels: Int = 1,
                frameRate: Double = 30, threads: Int = 1) {
        self.listen = listen
        self.codec = codec
        self.output = output
        self.payloadType = payloadType
        self.srtpKey = srtpKey
        self.maxDuration = maxDuration
        self.idleTimeout = idleTimeout
        self.usesJitterBuffer = usesJitterBuffer
        self.nack = nack
        self.sendsFeedback = sendsFeedback
        self.rtxPayloadType = rtxPayloadType
        self.reorderWindow = reorderWindow
        self.channels = channels
        self.frameRate = frameRate
        self.threads = threads
    }

    /// Options for the stream an SDP describes: its codec, payload type, port, channels and
    /// `a=crypto` key, listening on `host`.
    public init(sessionDescription sdp: SessionDescription, output: String, host: String = "0.0.0.0") throws {
        var key: SRTPMasterKey?
        if let crypto = sdp.crypto {
            do { key = try SDESCryptoAttribute(parsing: "crypto:1 " + crypto).key } catch {
                throw JobError(.invalidOptions, "the SDP's a=crypto line cannot be used: \(error)")
            }
        }
        self.init(listen: UDPAddress(host: host, port: sdp.port), codec: sdp.codec, output: output,
                  payloadType: sdp.payloadType, srtpKey: key, channels: sdp.channels)
    }

    /// The payload type in use.
    public var effectivePayloadType: UInt8 { payloadType ?? LiveSender.defaultPayloadType(for: codec) }

    /// The retransmission payload type in use.
    public var effectiveRTXPayloadType: UInt8 { rtxPayloadType ?? LiveSender.defaultRTXPayloadType(for: effectivePayloadType) }
}
