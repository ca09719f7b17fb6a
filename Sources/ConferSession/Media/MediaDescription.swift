/// Where and how a member exchanges media, as it announces it: its UDP address, and (the
/// host) the composite's codec, canvas and frame rate, from which every participant derives
/// the same SSRCs and payload types.
///
/// A device behind a NAT announces two addresses for the same socket: where the server's
/// STUN responder saw it (``host``:``port``, the NAT's mapping, for the other side of the
/// NAT) and the address it is bound to (in ``alternates``, for a device on the same LAN,
/// whose NAT may not send datagrams to its own public address back in). The other side
/// challenges each; media goes to the first that answers (ConferNet's `MediaConsent`).
public struct MediaDescription: Sendable, Codable, Hashable {
    /// Another address the same socket may be reached at.
    public struct Address: Sendable, Codable, Hashable {
        /// The IP address.
        public var host: String
        /// The UDP port.
        public var port: Int

        /// `host:port`.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// Whether the host is one a description may name and the port a UDP port.
        var isPlausible: Bool {
            !host.isEmpty && host.utf8.count <= MediaDescription.maximumHostBytes && (1 ... 65_535).contains(port)
        }
    }

    /// The IP address media goes to.
    public var host: String
    /// The UDP port.
    public var port: Int
    /// Other addresses the same socket may be reached at, tried beside ``host``:``port``;
    /// nil (left out on the wire, as by a device before there were any) for none.
    public var alternates: [Address]?
    /// The codec sent (`vp8`, `vp9`, `h264`).
    public var codec: String
    /// The picture width sent (the host: its canvas).
    public var width: Int
    /// The picture height sent.
    public var height: Int
    /// Frames per second sent.
    public var frameRate: Double

    /// A description of media at `host:port`, and perhaps at `alternates` too.
    public init(host: String, port: Int, alternates: [Address]? = nil, codec: String, width: Int, height: Int, frameRate: Double) {
        self.host = host
        self.port = port
        self.alternates = alternates
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    /// The longest host a description may name, in UTF-8 bytes.
    public static let maximumHostBytes = 64
    /// The most ``alternates`` a description may name: each is sent challenges, so a
    /// description must not be able to point them at many machines.
    public static let maximumAlternates = 2

    /// The video codecs a member or a call may send, by their names on the wire.
    public static let videoCodecs: Set<String> = ["vp8", "vp9", "h264"]

    /// Whether the fields are within what any member could send.
    public var isPlausible: Bool {
        Address(host: host, port: port).isPlausible && Self.videoCodecs.contains(codec)
            && (alternates ?? []).count <= Self.maximumAlternates && (alternates ?? []).allSatisfy(\.isPlausible)
            && (16 ... 7680).contains(width) && (16 ... 4320).contains(height) && frameRate > 0 && frameRate <= 120
    }

    /// Every address announced: ``host``:``port`` first, then the ``alternates``.
    public var addresses: [Address] {
        [Address(host: host, port: port)] + (alternates ?? [])
    }
}
