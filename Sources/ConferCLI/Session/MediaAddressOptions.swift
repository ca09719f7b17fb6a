import ArgumentParser
import ConferClient
import ConferNet
import ConferSession
import Foundation

/// Where `confer host`, `join` and `call` bind their media, and the address they announce
/// for it: by default the address this machine reaches the server from, so that members and
/// callers on other machines can send there (loopback only for a server on loopback).
struct MediaAddressOptions: ParsableArguments {
    @Option(help: "The local address media binds to (default: the one this machine reaches the server from; loopback for a server on loopback). 0.0.0.0 binds every interface and needs --media-address.")
    var mediaBind: String?
    @Option(help: "HOST or HOST:PORT to announce for media instead of the bound address: behind a NAT, its public address and a port forwarded here (without a port, the bound one).")
    var mediaAddress: String?
    @Flag(help: "Do not ask the server's STUN responder where media is seen from (behind a NAT, the NAT's mapping, announced instead of the bound address).")
    var noStun = false

    func validate() throws {
        if let mediaAddress, AnnouncedMediaAddress(parsing: mediaAddress) == nil {
            throw ValidationError("--media-address must be HOST or HOST:PORT with a port from 1 to 65535 (got \(mediaAddress))")
        }
        // The server refuses a media description whose host is longer: said here, not by a call that times out.
        for (name, host) in [("--media-address", mediaAddress.flatMap(AnnouncedMediaAddress.init(parsing:))?.host), ("--media-bind", mediaBind)] {
            if let host, host.utf8.count > MediaDescription.maximumHostBytes {
                throw ValidationError("\(name) names a host of \(host.utf8.count) bytes; the server takes at most \(MediaDescription.maximumHostBytes)")
            }
        }
        if let mediaBind {
            if mediaBind.isEmpty || mediaBind.contains("[") { throw ValidationError("--media-bind takes an address without a port or brackets, such as 192.168.1.20 or ::") }
            if ["0.0.0.0", "::"].contains(mediaBind), mediaAddress == nil {
                throw ValidationError("--media-bind \(mediaBind) binds every interface: say with --media-address which address the other side sends to")
            }
        }
    }

    /// Sets `options`' bind host and announced address for media signaled through `server`,
    /// having bound the host once: an address that is not this machine's is said before
    /// anything connects, not when a call's media starts.
    func apply(to options: inout some ClientMediaAddress, server: String) async throws {
        options.announcedAddress = mediaAddress.flatMap(AnnouncedMediaAddress.init(parsing:))
        options.usesSTUN = !noStun
        let host: String
        if let mediaBind { host = mediaBind } else { host = try await Self.defaultBind(server: server) }
        do { try await UDPSocket.withSocket(bindingTo: UDPAddress(host: host, port: 0)) { _ in } } catch {
            throw ValidationError("media cannot bind to \(host): \(error)\(mediaBind == nil ? "; give --media-bind" : "")")
        }
        options.bindHost = host
    }

    /// The address media binds to by default: the one this machine reaches `server`'s host
    /// from; loopback for a server on loopback, as before there was a choice.
    static func defaultBind(server: String) async throws -> String {
        guard var host = URLComponents(string: server)?.host, !host.isEmpty else { return "127.0.0.1" }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasPrefix("127.") || host == "::1" { return "127.0.0.1" }
        do { return try await UDPSocket.localHost(reaching: host) } catch {
            throw ValidationError("cannot tell which of this machine's addresses reaches \(host) for media (\(error)): give --media-bind")
        }
    }
}

/// The media address of a call's or a meeting member's options, which `confer call`,
/// `join` and `host` fill alike from their ``MediaAddressOptions``.
protocol ClientMediaAddress {
    /// The address media binds to.
    var bindHost: String { get set }
    /// What is announced instead of the bound address, if anything.
    var announcedAddress: AnnouncedMediaAddress? { get set }
    /// Whether the server's STUN responder is asked where media is seen from.
    var usesSTUN: Bool { get set }
}

extension CallMediaOptions: ClientMediaAddress {}
extension MeetingMediaOptions: ClientMediaAddress {}
