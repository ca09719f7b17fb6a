public import ConferMedia

/// What a call's media sends and where it writes what it receives. The defaults follow
/// call SDKs: at most 720p at 24 frames per second.
public struct CallMediaOptions: Sendable {
    /// The video codec this side sends: VP8, VP9 or H.264. The other side may send another;
    /// each decodes what the other describes.
    public var codec: Codec = .vp8
    /// A recorded camera (.y4m, .ivf, .h264), looped; a test pattern otherwise.
    public var cameraFile: String?
    /// A recorded voice (.wav, .opus); a tone in turns otherwise.
    public var microphoneFile: String?
    /// The synthetic camera's size.
    public var cameraWidth = 320
    /// The synthetic camera's size.
    public var cameraHeight = 180
    /// Frames per second sent.
    public var frameRate = 24.0
    /// The camera's top bitrate, bits per second.
    public var cameraBitrate = 800_000
    /// Where to write the other side's video as received (.ivf/.h264) or as rendered (.y4m).
    public var videoOutput: String?
    /// Where to write the other side's voice as played (.wav or .opus).
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
    /// How long received media may stop before this side ends the call as lost.
    public var mediaLossTimeout: Duration = .seconds(10)

    /// The largest picture a call sends.
    public static let maximumSize = (width: 1280, height: 720)
    /// The highest frame rate a call sends.
    public static let maximumFrameRate = 24.0

    /// The defaults.
    public init() {}
}
