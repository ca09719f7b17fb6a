public import ConferMedia

/// A one-stream SDP (RFC 8866) describing what `confer send` sends, in the form FFmpeg,
/// ffplay and GStreamer read: one `m=` line, its `rtpmap`/`fmtp`, and an SDES `a=crypto`
/// line (RFC 4568) when the stream is SRTP.
public struct SessionDescription: Equatable, Sendable {
    /// The codec of the stream.
    public var codec: Codec
    /// The RTP payload type (96–127 for dynamic types).
    public var payloadType: UInt8
    /// Where the stream goes: the receiver's address.
    public var address: String
    /// The receiver's UDP port.
    public var port: Int
    /// Audio channels (Opus is always declared `/2` per RFC 7587; this sets `stereo=`).
    public var channels: Int
    /// The SSRC of the stream, when known.
    public var ssrc: UInt32?
    /// `a=crypto` value after the tag, such as `AES_CM_128_HMAC_SHA1_80 inline:…`; nil for plain RTP.
    public var crypto: String?
    /// The session name (`s=`).
    public var sessionName: String
    /// Whether RTCP shares the RTP port (`a=rtcp-mux`, RFC 5761) rather than the port above.
    public var rtcpMux: Bool

    /// A description of one stream of `codec` to `address`:`port`.
    public init(codec: Codec, payloadType: UInt8, address: String, port: Int, channels: Int = 1,
                ssrc: UInt32? = nil, crypto: String? = nil, sessionName: String = "Confer", rtcpMux: Bool = false) {
        self.codec = codec
        self.payloadType = payloadType
        self.address = address
        self.port = port
        self.channels = channels
        self.ssrc = ssrc
        self.crypto = crypto
        self.sessionName = sessionName
        self.rtcpMux = rtcpMux
    }

    /// The encoding name in `a=rtpmap` (RFC 7587, 7741, 9628, 6184).
    public var encodingName: String {
        switch codec {
        case .vp8: "VP8"
        case .vp9: "VP9"
        case .h264: "H264"
        case .opus: "opus"
        }
    }

    /// The SDP text, lines ending in CRLF.
    public var text: String {
        let ipVersion = address.contains(":") ? "IP6" : "IP4"
        var lines = [
            "v=0",
            "o=- 0 0 IN \(ipVersion) \(address)",
            "s=\(sessionName)",
            "c=IN \(ipVersion) \(address)",
            "t=0 0",
        ]
        let media = codec.isVideo ? "video" : "audio"
        lines.append("m=\(media) \(port) \(crypto == nil ? "RTP/AVP" : "RTP/SAVP") \(payloadType)")
        let rate = codec.rtpClockRate
        lines.append(codec == .opus ? "a=rtpmap:\(payloadType) opus/48000/2" : "a=rtpmap:\(payloadType) \(encodingName)/\(rate)")
        switch codec {
        case .h264:
            lines.append("a=fmtp:\(payloadType) packetization-mode=1;profile-level-id=42e01f;level-asymmetry-allowed=1")
        case .opus:
            lines.append("a=fmtp:\(payloadType) minptime=10;useinbandfec=1;stereo=\(channels == 2 ? 1 : 0);sprop-stereo=\(channels == 2 ? 1 : 0)")
        case .vp8, .vp9:
            break
        }
        if let crypto { lines.append("a=crypto:1 \(crypto)") }
        if let ssrc { lines.append("a=ssrc:\(ssrc) cname:confer") }
        if rtcpMux { lines.append("a=rtcp-mux") }
        lines.append("a=sendonly")
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// Reads the first `m=` stream of an SDP document.
    ///
    /// Accepts what Confer writes and what FFmpeg's `-sdp_file` writes; anything it cannot
    /// use is a ``SessionDescriptionError`` naming the line.
    public init(parsing sdp: String) throws(SessionDescriptionError) {
        var address: String?
        var mediaLine: (kind: String, port: Int, proto: String, pt: UInt8)?
        var rtpmaps: [UInt8: (name: String, rate: Int, channels: Int)] = [:]
        var fmtp: [UInt8: String] = [:]
        var crypto: String?
        var ssrc: UInt32?
        var rtcpMux = false
        var name = "-"
        var lineNumber = 0
        // "\r\n" is one Character in Swift, so split on any newline character.
        for raw in sdp.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = String(raw)
            if line.isEmpty { continue }
            guard line.count >= 2, line.dropFirst().first == "=" else {
                throw SessionDescriptionError(line: lineNumber, "expected TYPE=VALUE, found \(line.prefix(40))")
            }
            let value = String(line.dropFirst(2))
            switch line.first {
            case "s": name = value
            case "c":
                // c=IN IP4 127.0.0.1 (a session-level or media-level line; the last one wins)
                let parts = value.split(separator: " ")
                guard parts.count >= 3 else { throw SessionDescriptionError(line: lineNumber, "c= needs network type, address type and address") }
                address = String(parts[2].split(separator: "/").first ?? parts[2])
            case "m":
                if mediaLine != nil { continue }  // first stream only
                let parts = value.split(separator: " ")
                guard parts.count >= 4, let port = Int(parts[1]), (0...65535).contains(port), let pt = UInt8(parts[3]), pt < 128 else {
                    throw SessionDescriptionError(line: lineNumber, "m= needs media, port, protocol and a payload type 0–127")
                }
                mediaLine = (String(parts[0]), port, String(parts[2]), pt)
            case "a":
                if value.hasPrefix("rtpmap:") {
                    let body = value.dropFirst("rtpmap:".count)
                    let parts = body.split(separator: " ", maxSplits: 1)
                    guard parts.count == 2, let pt = UInt8(parts[0]) else { throw SessionDescriptionError(line: lineNumber, "bad rtpmap") }
                    let enc = parts[1].split(separator: "/")
                    guard enc.count >= 2, let rate = Int(enc[1]) else { throw SessionDescriptionError(line: lineNumber, "rtpmap needs NAME/RATE") }
                    rtpmaps[pt] = (String(enc[0]), rate, enc.count > 2 ? Int(enc[2]) ?? 1 : 1)
                } else if value.hasPrefix("fmtp:") {
                    let body = value.dropFirst("fmtp:".count)
                    let parts = body.split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let pt = UInt8(parts[0]) { fmtp[pt] = String(parts[1]) }
                } else if value.hasPrefix("crypto:") {
                    // a=crypto:TAG SUITE KEY-PARAMS
                    let parts = value.dropFirst("crypto:".count).split(separator: " ", maxSplits: 1)
                    guard parts.count == 2 else { throw SessionDescriptionError(line: lineNumber, "a=crypto needs a tag, a suite and key parameters") }
                    crypto = String(parts[1])
                } else if value.hasPrefix("ssrc:") {
                    ssrc = UInt32(value.dropFirst("ssrc:".count).split(separator: " ").first ?? "")
                } else if value == "rtcp-mux" {
                    rtcpMux = true
                }
            default:
                continue
            }
        }
        guard let mediaLine else { throw SessionDescriptionError(line: lineNumber, "no m= line") }
        guard let address else { throw SessionDescriptionError(line: lineNumber, "no c= line with the address") }
        let pt = mediaLine.pt
        let codec: Codec
        var channels = 1
        if let map = rtpmaps[pt] {
            switch map.name.lowercased() {
            case "vp8": codec = .vp8
            case "vp9": codec = .vp9
            case "h264": codec = .h264
            case "opus":
                codec = .opus
                channels = (fmtp[pt]?.contains("stereo=1") ?? false) ? 2 : 1
            default: throw SessionDescriptionError(line: lineNumber, "codec \(map.name) is not one Confer decodes")
            }
        } else {
            throw SessionDescriptionError(line: lineNumber, "no a=rtpmap for payload type \(pt)")
        }
        self.init(codec: codec, payloadType: pt, address: address, port: mediaLine.port, channels: channels,
                  ssrc: ssrc, crypto: crypto, sessionName: name, rtcpMux: rtcpMux)
    }
}

/// Why an SDP document could not be used.
public struct SessionDescriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line where the problem was found.
    public let line: Int
    /// What was wrong.
    public let detail: String

    init(line: Int, _ detail: String) {
        self.line = line
        self.detail = detail
    }

    public var description: String { "SDP line \(line): \(detail)" }
}
