import ConferNet
import ConferSession

/// The address the other side is told to send this device's media to, when that is not the
/// address media is bound to: behind a NAT, its public address, with a port forwarded to
/// this device (a 1:1 NAT keeps the port; Janus calls it `nat_1_1_mapping`).
///
/// Without it a device announces the address it is bound to. The other side also finds it
/// where its datagrams come from, once they authenticate (ConferNet's `MediaConsent`), so a
/// device behind a NAT is reached in a call or meeting when the other side is reachable;
/// this is for the other way round.
public struct AnnouncedMediaAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host announced: a numeric address or a name the other side resolves.
    public var host: String
    /// The port announced; nil announces the port media is bound to.
    public var port: Int?

    /// `host`, with `port` or the bound one.
    public init(host: String, port: Int? = nil) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST`, `HOST:PORT` or `[IPv6]:PORT`, or a bare IPv6 address as a host; nil for
    /// anything else: an empty host, a character no host name or address has, brackets
    /// around anything but an IPv6 address with a port, a port outside 1…65535.
    public init?(parsing text: String) {
        let host: Substring
        var port: Int?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex) ..< close]
            guard host.contains(":"), let value = Int(text[text.index(close, offsetBy: 2)...]) else { return nil }
            port = value
        } else if let colon = text.firstIndex(of: ":"), colon == text.lastIndex(of: ":") {
            host = text[..<colon]
            guard let value = Int(text[text.index(after: colon)...]) else { return nil }
            port = value
        } else {
            host = text[...]
        }
        guard !host.isEmpty, host.allSatisfy(Self.isHostCharacter), port.map({ (1 ... 65_535).contains($0) }) ?? true else { return nil }
        self.init(host: String(host), port: port)
    }

    /// Letters, digits and what names and addresses join them with (an IPv6 zone's `%` too).
    private static func isHostCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || ".-:_%".contains(character))
    }

    public var description: String {
        guard let port else { return host }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// What a device bound on `bindHost`:`boundPort` announces: `announced`, its port the
    /// bound one when it names none; else where the STUN server saw the socket (`reflexive`:
    /// behind a NAT, the NAT's mapping), with the bound address as an alternate when it
    /// differs, for a device on the same LAN behind a NAT that does not hairpin; else the
    /// bound address itself.
    static func announcing(_ announced: Self?, bindHost: String, boundPort: Int,
                           reflexive: STUNBindingTransaction.Outcome? = nil)
        -> (host: String, port: Int, alternates: [MediaDescription.Address]?) {
        if let announced { return (announced.host, announced.port ?? boundPort, nil) }
        if case .mapped(let seen) = reflexive {
            let bound = UDPAddress(host: bindHost, port: boundPort)
            let wildcard = ["0.0.0.0", "::"].contains(bindHost)
            return (seen.host, seen.port, seen == bound || wildcard ? nil : [MediaDescription.Address(host: bindHost, port: boundPort)])
        }
        return (bindHost, boundPort, nil)
    }
}
