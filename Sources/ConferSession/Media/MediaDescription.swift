/// Where and how a member exchanges media, as it announces it: its UDP address, and (the
/// host) the composite's codec, canvas and frame rate, from which every participant derives
/// the same SSRCs and payload types.
public struct MediaDescription: Sendable, Codable, Hashable {
    /// The IP address media goes to.
    public var host: String
    /// The UDP port.
    public var port: Int
    /// The codec sent (`vp8`, `vp9`, `h264`).
    public var codec: String
    /// The picture width sent (the host: its canvas).
    public var width: Int
    /// The picture height sent.
    public var height: Int
    /// Frames per second sent.
    public var frameRate: Double

    /// A description of media at `host:port`.
    public init(host: String, port: Int, codec: String, width: Int, height: Int, frameRate: Double) {
        self.host = host
        self.port = port
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// The longest host a description may name, in UTF-8 bytes.
    public static let maximumHostBytes = 64

    /// The video codecs a member or a call may send, by their names on the wire.
    public static let videoCodecs: Set<String> = ["vp8", "vp9", "h264"]

    /// Whether the fields are within what any member could send.
    public var isPlausible: Bool {
        !host.isEmpty && host.utf8.count <= Self.maximumHostBytes && (1 ... 65_535).contains(port) && Self.videoCodecs.contains(codec)
            && (16 ... 7680).contains(width) && (16 ... 4320).contains(height) && frameRate > 0 && frameRate <= 120
    }
}
