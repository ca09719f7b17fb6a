public import ConferSession
public import ConferTokens
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
public import Logging
public import ConferNet
import NIOCore
import NIOSSL
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `confer serve` runs.
public struct SignalServerConfiguration: Sendable {
    /// The address to listen on (loopback unless told otherwise).
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (the URL printed says which).
    public var port = 7880
    /// The HS256 secret tokens are signed with (at least 32 bytes).
    public var secret: String
    /// The bearer token of the admin API; without one the API answers 403.
    public var adminToken: String?
    /// The rules new rooms get.
    public var rules = RoomRules()
    /// A PEM certificate chain and private key: given both, the server speaks TLS (wss).
    public var certificatePath: String?
    /// The PEM private key matching ``certificatePath``.
    public var privateKeyPath: String?
    /// The call log's SQLite file; nil keeps it in memory (lost when the server stops).
    public var callLogPath: String?
    /// The rules calls get (ringing and connection timeouts, the reconnection window).
    public var callRules = CallRules()
    /// The UDP port of the STUN responder on ``host``, which tells each device where its
    /// media socket is seen from (behind a NAT, the NAT's mapping); 0 picks a free one. Each
    /// member's and device's welcome names it. Nil runs none.
    public var stunPort: Int? = 0

    /// A configuration with this secret and the defaults.
    public init(secret: String) { self.secret = secret }
}

/// Why the server cannot start.
public enum SignalServerError: Error, Sendable, CustomStringConvertible {
    /// The secret is too short to sign tokens.
    case secret(TokenSecretError)
    /// The certificate or key could not be read.
    case tls(String)
    /// The call log cannot be opened.
    case callLog(CallLogError)
    /// Another program listens on the address and port already.
    case addressInUse(host: String, port: Int)
    /// The address to listen on is not one of this machine's (or not an address at all).
    case unknownAddress(host: String, port: Int)
    /// The STUN responder's UDP port cannot be bound.
    case stun(UDPError)

    public var description: String {
        switch self {
        case .secret(let error): "\(error)"
        case .tls(let detail): "cannot use the TLS certificate and key: \(detail)"
        case .callLog(let error): "\(error)"
        case .addressInUse(let host, let port):
            "cannot listen on \(host):\(port): another program (another `confer serve`?) listens there; choose another port, or port 0 for a free one"
        case .unknownAddress(let host, let port):
            "cannot listen on \(host):\(port): no such address on this machine; use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or one of its addresses"
        case .stun(let error):
            "cannot answer STUN: \(error); choose another --stun-port (0 picks a free one), or --no-stun"
        }
    }
}

/// The signaling server: member WebSockets at `/v1/signal`, call devices at `/v1/calls`,
/// the admin API under `/v1/rooms`, Prometheus text at `/metrics`, `ok` at `/healthz`.
public struct SignalServer: Sendable {
    /// The rooms.
    public let hub: RoomHub
    /// The calls and their log.
    public let calls: CallHub
    /// The metrics `/metrics` prints.
    public let metrics: ServerMetrics
    private let issuer: TokenIssuer
    private let configuration: SignalServerConfiguration
    private let logger: Logger

    /// A server for `configuration`; fails when the secret is too short.
    public init(configuration: SignalServerConfiguration, logger: Logger = Logger(label: "confer.serve")) async throws(SignalServerError) {
        do { issuer = try await TokenIssuer(secret: configuration.secret) } catch { throw .secret(error) }
        metrics = ServerMetrics()
        let signer = issuer
        hub = RoomHub(rules: configuration.rules, metrics: metrics, signer: { await signer.sign($0) })
        let log: CallLog
        do { log = try CallLog(path: configuration.callLogPath) } catch { throw .callLog(error) }
        calls = CallHub(rules: configuration.callRules, log: log, metrics: metrics, logger: logger, signer: { await signer.sign($0) })
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether the server speaks TLS.
    public var usesTLS: Bool { configuration.certificatePath != nil && configuration.privateKeyPath != nil }

    /// The application: routes, WebSocket upgrade and TLS. `onListening` gets the bound port.
    public func buildApplication(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) throws(SignalServerError) -> some ApplicationProtocol {
        let router = Router()
        let metrics = metrics
        router.get("healthz") { _, _ in "ok" }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        AdminRoutes.add(to: router, hub: hub, adminToken: configuration.adminToken)

        let connection = SignalConnection(hub: hub, issuer: issuer, logger: logger)
        let callConnection = CallConnection(hub: calls, issuer: issuer, logger: logger)
        let watch = RoomWatchConnection(hub: hub, adminToken: configuration.adminToken)
        // Frames up to 1 MiB reach the decoder, which refuses what is over the protocol's cap
        // with a typed reason; keepalive is the protocol's own ping. The upgrade picks its
        // WebSocket from the path itself (WebSocketRoute says why not through a router).
        let webSocket = WebSocketServerConfiguration(maxFrameSize: 1 << 20, autoPing: .disabled)
        var server = HTTPServerBuilder.http1WebSocketUpgrade(configuration: .init(ws: webSocket)) { head, _, _ in
            guard head.method == .get, let route = WebSocketRoute(path: head.path ?? "") else { return .dontUpgrade }
            let authorization = head.headerFields[.authorization]
            return .upgrade([:]) { inbound, outbound, _ in
                switch route {
                case .signal: try await connection.run(inbound: inbound, outbound: outbound)
                case .calls: try await callConnection.run(inbound: inbound, outbound: outbound)
                case .watch(let room): try await watch.run(authorization: authorization, room: room, inbound: inbound, outbound: outbound)
                }
            }
        }
        if let certificate = configuration.certificatePath, let key = configuration.privateKeyPath {
            // NIOSSL says `failedToLoadCertificate` for a missing file and a wrong one alike:
            // name the file, and which of the two it is.
            func load<T>(_ path: String, as what: String, _ read: () throws -> T) throws(SignalServerError) -> T {
                guard access(path, R_OK) == 0 else { throw .tls("cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
                do { return try read() } catch { throw .tls("\(path) holds no PEM \(what) (\(error))") }
            }
            let chain = try load(certificate, as: "certificate") {
                try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            }
            let privateKey = try load(key, as: "private key") { try NIOSSLPrivateKey(file: key, format: .pem) }
            do {
                let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
                server = try .tls(server, tlsConfiguration: tls)
            } catch { throw .tls("\(error)") }
        }
        return Application(router: router, server: server,
                           configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "confer"),
                           onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
                           logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then ends every session with `serverShutdown` and stops.
    /// The STUN responder's port, once bound, goes to `onSTUNListening` (before the HTTP
    /// port is bound). Throws ``SignalServerError/addressInUse(host:port:)`` when the port is
    /// taken, ``SignalServerError/unknownAddress(host:port:)`` for an address not on this
    /// machine, and ``SignalServerError/stun(_:)`` when the STUN port cannot be bound.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in },
                    onSTUNListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let application = try buildApplication(onListening: onListening)
        guard let stunPort = configuration.stunPort else {
            try await run(application, with: [])
            return
        }
        let stun: STUNService
        do {
            stun = try STUNService.bind(host: configuration.host, port: stunPort, metrics: metrics)
        } catch {
            // An address not on this machine fails the STUN bind first: say it as for HTTP.
            if error.kind == .unresolvable || error.kind == .notLocal {
                throw SignalServerError.unknownAddress(host: configuration.host, port: configuration.port)
            }
            throw SignalServerError.stun(error)
        }
        await hub.useSTUN(port: stun.port)
        await calls.useSTUN(port: stun.port)
        await onSTUNListening(stun.port)
        do {
            try await run(application, with: [stun])
        } catch {
            stun.socket.stop()
            throw error
        }
    }

    private func run(_ application: some ApplicationProtocol, with extra: [any Service]) async throws {
        let services: [any Service] = [application, RoomHubService(hub: hub, calls: calls)] + extra
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) },
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw SignalServerError.addressInUse(host: configuration.host, port: configuration.port)
        } catch let error as IOError where error.errnoCode == EADDRNOTAVAIL {
            throw SignalServerError.unknownAddress(host: configuration.host, port: configuration.port)
        } catch is SocketAddressError.UnknownHost {
            throw SignalServerError.unknownAddress(host: configuration.host, port: configuration.port)
        } catch is SocketAddressError {
            throw SignalServerError.unknownAddress(host: configuration.host, port: configuration.port)
        }
    }
}

/// Moves the rooms' and calls' time on ten times a second; on shutdown, ends every session first so
/// the HTTP server has no connection left to wait for.
struct RoomHubService: Service {
    let hub: RoomHub
    let calls: CallHub

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            await hub.tick()
            await calls.tick()
            try? await Task.sleep(for: .milliseconds(100))
        }
        await hub.shutDown()
        await calls.shutDown()
        await hub.waitForWatchesToClose(upTo: .seconds(2))
    }
}
