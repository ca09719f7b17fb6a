public import ConferLive
public import ConferMedia
public import ConferMixer

/// What a member's media sends and where it writes what it receives.
public struct MeetingMediaOptions: Sendable {
    /// The host: the composite's codec.
    public var codec: Codec = .vp8
    /// The host: the canvas.
    public var canvasWidth = 640
    /// The host: the canvas.
    public var canvasHeight = 360
    /// The host: composite frames per second.
    public var frameRate = 24.0
    /// The host: the layout (a grid by default).
    public var layout: LayoutKind?
    /// The host: the composite's top bitrate.
    public var maximumBitrate = 1_200_000
    /// The host: whether members on weak links get a second, smaller encode of the
    /// composite (``HostPipelineConfiguration/simulcast``).
    public var simulcast = true
    /// The host: temporal layers in the composite, 1…3, VP8 or VP9 (``HostPipelineConfiguration/temporalLayers``).
    public var temporalLayers = 1
    /// The host: where to write the composite as encoded (.ivf for VP8/VP9, .h264).
    public var compositeOutput: String?
    /// The host: where to send a plain-RTP copy of the composite and the whole mix, for an
    /// audience an SFU fans it out to (``LiveForwardTarget``), while the room's administrator
    /// has set no forward of the room's own (``RoomSnapshot/forward``), which takes its place.
    public var forward: LiveForwardTarget?
    /// A participant: a recorded camera (a test pattern in its slot's colour otherwise).
    public var cameraFile: String?
    /// A participant: a recorded voice (a tone in turns otherwise).
    public var microphoneFile: String?
    /// A participant: the synthetic camera's size.
    public var cameraWidth = 320
    /// A participant: the synthetic camera's size.
    public var cameraHeight = 180
    /// A participant: where to write the composite it receives (.ivf, .h264, .y4m).
    public var videoOutput: String?
    /// A participant: where to write the mix it plays (.wav, .opus).
    public var audioOutput: String?
    /// The address media binds to (loopback by default), and announces unless
    /// ``announcedAddress`` names another.
    public var bindHost = "127.0.0.1"
    /// The address announced instead of the bound one (a NAT's public address); nil
    /// announces where the server's STUN responder sees the media socket (``usesSTUN``), or
    /// else the bound address, which is then not a wildcard.
    public var announcedAddress: AnnouncedMediaAddress?
    /// Whether the media socket, before its address is announced, asks the signaling
    /// server's STUN responder (when its welcome names one) which address it is seen from,
    /// and announces that: behind a NAT, the NAT's mapping, which a peer behind another NAT
    /// can reach once both have sent. Not asked when ``announcedAddress`` is given.
    public var usesSTUN = true

    /// The defaults.
    public init() {}
}
