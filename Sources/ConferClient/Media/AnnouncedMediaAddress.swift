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

    /// Parses `HOST`, `HOST:PORT` or `[IPv6]:PORT` (a bare IPv6 address is a host); nil for
    /// an empty host or a port outside 1…65535.
    public init?(parsing text: String) {
        if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon || text.hasPrefix("[") {
            var host = String(text[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard let port = Int(text[text.index(after: colon)...]), (1 ... 65_535).contains(port), !host.isEmpty else { return nil }
            self.init(host: host, port: port)
        } else {
            guard !text.isEmpty, !text.hasPrefix("[") else { return nil }
            self.init(host: text)
        }
    }

    public var description: String {
        let host = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(host):\($0)" } ?? host
    }

    /// What a device bound on `bindHost`:`boundPort` announces: `announced`, its port the
    /// bound one when it names none, or the bound address itself.
    static func announcing(_ announced: Self?, bindHost: String, boundPort: Int) -> (host: String, port: Int) {
        guard let announced else { return (bindHost, boundPort) }
        return (announced.host, announced.port ?? boundPort)
    }
}
