import NIOCore
import NIOPosix

extension UDPSocket {
    /// The local address this machine sends from to reach `host` (a name or a numeric
    /// address): the address of the interface its route leaves by, as a connected UDP socket
    /// finds it, with nothing sent. Media bound there can be reached by whoever reaches
    /// `host` from this machine's side, where loopback reaches only this machine.
    ///
    /// - Throws: ``UDPError`` of kind `unresolvable` for a host that does not resolve, and
    ///   `unreachable` when no route leads to it.
    public static func localHost(reaching host: String) async throws(UDPError) -> String {
        let remote: SocketAddress
        do { remote = try SocketAddress.makeAddressResolvingHost(host, port: 9) } catch {
            throw UDPError(.unresolvable, operation: "resolve \(host)", detail: "\(error)")
        }
        let local: String?
        do {
            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: remote).get()
            local = channel.localAddress?.ipAddress
            try? await channel.close()
        } catch {
            throw UDPError(.unreachable, operation: "find the route to \(host)", detail: "\(error)")
        }
        guard let local else { throw UDPError(.unreachable, operation: "find the route to \(host)", detail: "no local address") }
        return local
    }
}
