public import ConferMedia
public import ConferNet
public import ConferSRTP

/// What `confer receive` listens for and where it writes.
public struct RTPReceiverOptions: Sendable {
    /// The address and port to listen on (port 0 picks a free one, reported through `ready`).
    public var listen: UDPAddress
    /// The codec expected.
    public var codec: Codec
    /// The output file: `.y4m` (decoded video), `.wav` or `.opus` (decoded audio), `.ivf`
    /// (VP8/VP9 frames as received) or `.h264` (H.264 access units as received).
    public var output: String
    /// The payload type accepted; nil picks ``RTPSender/defaultPayloadType(for:)``.
    public var payloadType: UInt8?
    /// The SRTP key; nil receives plain RTP.
    public var srtpKey: SRTPMasterKey?
    /// Stop this many seconds after listening starts.
    public var maxDuration: Double?
    /// Stop once no datagram has arrived for this many seconds (counted from the first one).
    public var idleTimeout: Double
    /// How many newer packets may arrive after a gap before the packet missing there is
    /// taken as lost (frame assembly waits that long for reordered packets).
    public var reorderWindow: Int
    /// Audio channels written (Opus decodes mono or stereo packets to either).
    public var channels: Int
    /// The frame rate written in a Y4M header (RTP carries none).
    public var frameRate: Double
    /// Decoder threads.
    public var threads: Int

    /// Options to receive `codec` on `listen` into `output`, with defaults for everything else.
    public init(listen: UDPAddress, codec: Codec, output: String, payloadType: UInt8? = nil, srtpKey: SRTPMasterKey? = nil,
                maxDuration: Double? = nil, idleTimeout: Double = 2, reorderWindow: Int = 16, channels: Int = 1,
                frameRate: Double = 30, threads: Int = 1) {
        self.listen = listen
        self.codec = codec
        self.output = output
        self.payloadType = payloadType
        self.srtpKey = srtpKey
        self.maxDuration = maxDuration
        self.idleTimeout = idleTimeout
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
                throw JobError("the SDP's a=crypto line cannot be used: \(error)")
            }
        }
        self.init(listen: UDPAddress(host: host, port: sdp.port), codec: sdp.codec, output: output,
                  payloadType: sdp.payloadType, srtpKey: key, channels: sdp.channels)
    }

    /// The payload type in use.
    public var effectivePayloadType: UInt8 { payloadType ?? RTPSender.defaultPayloadType(for: codec) }
}
