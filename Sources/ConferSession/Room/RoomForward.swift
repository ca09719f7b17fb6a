/// Where a room's host sends a plain-RTP copy of the meeting, the composite and the whole
/// mix, for an audience outside it: an SFU's ports, such as a Janus streaming mountpoint's.
///
/// The room's administrator sets it (through the admin API), not a member: whoever hosts the
/// room forwards there, so the copy goes on when the host role moves, and no member can point
/// another member's machine at an address of its choosing. Only the host's view of the room
/// (and the administrator's) shows it.
///
/// Each address is an IP address and a port, `A.B.C.D:PORT` or `[IPv6]:PORT`: a host that is
/// given a forward mid-meeting starts it at once, without looking a name up.
public struct RoomForward: Sendable, Codable, Hashable {
    /// Where the composite's RTP goes.
    public var video: String
    /// The SFU's RTCP port for the composite (sender reports out, keyframe requests back).
    public var videoRTCP: String?
    /// Where the mix's RTP goes (none: video only).
    public var audio: String?
    /// The SFU's RTCP port for the mix.
    public var audioRTCP: String?

    /// A forward of the composite to `video` and of the mix to `audio`, with their RTCP ports.
    public init(video: String, videoRTCP: String? = nil, audio: String? = nil, audioRTCP: String? = nil) {
        self.video = video
        self.videoRTCP = videoRTCP
        self.audio = audio
        self.audioRTCP = audioRTCP
    }

    /// Checks that every address is an IP address and a port from 1 to 65535, and that the
    /// audio's RTCP port comes with the audio; says which field is wrong.
    public func validate() throws(RoomForwardError) {
        for (field, value) in [("video", video), ("videoRTCP", videoRTCP), ("audio", audio), ("audioRTCP", audioRTCP)] {
            guard let value else { continue }
            guard Self.isAddress(value) else { throw RoomForwardError(field: field, value: value) }
        }
        if audioRTCP != nil, audio == nil { throw RoomForwardError(field: "audioRTCP", value: audioRTCP ?? "", needsAudio: true) }
    }

    /// Whether `text` is `A.B.C.D:PORT` or `[IPv6]:PORT` with a port from 1 to 65535.
    static func isAddress(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":"), text.utf8.count <= 64 else { return false }
        let portText = text[text.index(after: colon)...]
        guard portText.utf8.allSatisfy({ (0x30 ... 0x39).contains($0) }), let port = Int(portText), (1 ... 65535).contains(port) else {
            return false
        }
        let host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") {
            // IPv6, in hex groups; a dotted IPv4 tail is allowed (::ffff:10.0.0.1).
            let inner = host.dropFirst().dropLast()
            return inner.count >= 2 && inner.contains(":")
                && inner.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." }
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { octet in
            (1 ... 3).contains(octet.count) && octet.utf8.allSatisfy { (0x30 ... 0x39).contains($0) } && Int(octet).map { $0 <= 255 } == true
        }
    }
}

/// Why a ``RoomForward`` was refused: the field and what it held.
public struct RoomForwardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field that is wrong (`video`, `videoRTCP`, `audio`, `audioRTCP`).
    public var field: String
    /// What it held.
    public var value: String
    /// The audio's RTCP port was given without the audio.
    public var needsAudio = false

    /// `field` held `value`, which is not an address (or, with `needsAudio`, came without the audio).
    public init(field: String, value: String, needsAudio: Bool = false) {
        self.field = field
        self.value = value
        self.needsAudio = needsAudio
    }

    /// For a person: what was wrong and what is expected.
    public var description: String {
        needsAudio ? "\(field) goes with audio"
            : "\(field) must be an IP address and a port, A.B.C.D:PORT or [IPv6]:PORT, the port from 1 to 65535 "
                + "(got \(value.utf8.count > 100 ? String(value.prefix(100)) + "…" : value))"
    }
}
