import ConferNet

/// Where the server's STUN responder is: the host of `server` (a base URL such as
/// `https://confer.example:7880` or `ws://[::1]:7880`), at the UDP port its welcome named.
/// Nil when the welcome named none (a server that runs no responder) or the URL has no host.
func stunServer(of server: String, port: Int?) -> UDPAddress? {
    guard let port, (1 ... 65535).contains(port), let schemeEnd = server.firstRange(of: "://") else { return nil }
    let authority = server[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        .split(separator: "@").last ?? ""
    let host: Substring
    if authority.hasPrefix("[") {
        guard let close = authority.firstIndex(of: "]") else { return nil }
        host = authority[authority.index(after: authority.startIndex) ..< close]
    } else {
        host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }
    return host.isEmpty ? nil : UDPAddress(host: String(host), port: port)
}
