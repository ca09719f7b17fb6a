import ArgumentParser
import ConferNet
import ConferServer
import ConferSession
import Foundation
import Logging
import Synchronization

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the signaling server: rooms, members, join requests, calls and their log, the admin API.",
        discussion: """
        Members connect to SERVER/v1/signal with a token from `confer token` (same secret); administrators use \
        SERVER/v1/rooms with --admin-token (see `confer rooms`); Prometheus reads SERVER/metrics. Prints the \
        server's URL on stdout once it listens; runs until Ctrl-C or SIGTERM, then ends every session with \
        "server shutdown". Listens on loopback unless told otherwise. Devices place and answer calls at \
        SERVER/v1/calls with a token from `confer token --calls`; every call is written to the call log, an \
        SQLite file (--db, by default confer-calls.sqlite in the working directory) that survives restarts.
          confer serve --secret-file secret.txt --admin-token admin
          confer serve --listen 0.0.0.0:7880 --secret "$SECRET" --cert server.pem --key server.key
        """)

    @Option(help: "HOST:PORT to listen on (port 0 picks a free one).")
    var listen = "127.0.0.1:7880"
    @OptionGroup var secret: SecretOptions
    @Option(help: "Bearer token for the admin API (off without one).")
    var adminToken: String?
    @Option(help: "PEM certificate chain: with --key, serve TLS (wss:// and https://).")
    var cert: String?
    @Option(help: "PEM private key for --cert.")
    var key: String?
    @Option(help: "Seconds a room stays open after its last member leaves.")
    var emptyTimeout: Double = 10
    @Option(help: "Seconds a room opened through the admin API waits for a first member.")
    var unusedTimeout: Double = 30
    @Option(help: "Seconds without a keepalive before a member counts as gone.")
    var keepaliveTimeout: Double = 30
    @Option(help: "Seconds a member whose connection dropped may resume.")
    var reconnectGrace: Double = 20
    @Option(help: "Seconds a join request waits for the host.")
    var joinTimeout: Double = 60
    @Option(help: "The most sending members (host and participants) per room.")
    var memberLimit: Int?
    @Flag(help: "Do not renew a connected member's or call device's token halfway through its lifetime: a member leaves when its token expires, and a device cannot sign in again after it.")
    var noTokenRefresh = false
    @Option(help: "The call log's SQLite file (default: confer-calls.sqlite in the working directory).")
    var db: String?
    @Flag(help: "Keep the call log in memory only (lost when the server stops).")
    var memoryDB = false
    @Option(help: "Seconds a call rings before it ends unanswered.")
    var ringingTimeout: Double = 60
    @Option(help: "Seconds an answered call may take to connect media.")
    var connectionTimeout: Double = 60
    @Option(help: "Seconds a side of a call whose connection dropped may come back.")
    var callReconnectWindow: Double = 10
    @Flag(help: "Ring a user who is in an answered call (call waiting). Without it such a dial fails at once as calleeBusy.")
    var ringThroughCalls = false
    @Option(help: "UDP port of the STUN responder on the --listen address, which tells each device the address its media is seen from (behind a NAT, the NAT's mapping); 0 picks a free one. Welcomes name it.")
    var stunPort = 0
    @Flag(help: "Run no STUN responder: devices announce the address their media is bound to (or --media-address).")
    var noStun = false
    @Flag(help: "Print the URL as JSON ({\"url\": …, \"stun\": PORT}).")
    var json = false

    func validate() throws {
        guard Self.hostPort(listen) != nil else { throw ValidationError("--listen must be HOST:PORT") }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together") }
        for (name, value) in [("--empty-timeout", emptyTimeout), ("--unused-timeout", unusedTimeout), ("--keepalive-timeout", keepaliveTimeout),
                              ("--reconnect-grace", reconnectGrace), ("--join-timeout", joinTimeout),
                              ("--ringing-timeout", ringingTimeout), ("--connection-timeout", connectionTimeout),
                              ("--call-reconnect-window", callReconnectWindow)] where !(value > 0 && value <= 86_400) {
            throw ValidationError("\(name) must be between 0 and 86400 seconds")
        }
        if let memberLimit, memberLimit < 1 { throw ValidationError("--member-limit must be at least 1") }
        if db != nil, memoryDB { throw ValidationError("--db and --memory-db exclude each other") }
        guard (0 ... 65_535).contains(stunPort) else { throw ValidationError("--stun-port must be within 0…65535") }
    }

    /// HOST:PORT or [IPv6]:PORT.
    static func hostPort(_ text: String) -> (String, Int)? {
        UDPAddress(parsing: text).map { ($0.host, $0.port) }
    }

    func run() async throws {
        let secret = try self.secret.read()
        var configuration = SignalServerConfiguration(secret: secret)
        let (host, port) = Self.hostPort(listen)!
        configuration.host = host
        configuration.port = port
        configuration.adminToken = adminToken
        configuration.certificatePath = cert
        configuration.privateKeyPath = key
        configuration.rules.emptyTimeout = .milliseconds(Int64(emptyTimeout * 1000))
        configuration.rules.unusedTimeout = .milliseconds(Int64(unusedTimeout * 1000))
        configuration.rules.keepaliveTimeout = .milliseconds(Int64(keepaliveTimeout * 1000))
        configuration.rules.reconnectGrace = .milliseconds(Int64(reconnectGrace * 1000))
        configuration.rules.joinRequestTimeout = .milliseconds(Int64(joinTimeout * 1000))
        configuration.rules.memberLimit = memberLimit
        configuration.rules.refreshesTokens = !noTokenRefresh
        configuration.callRules.ringingTimeout = .milliseconds(Int64(ringingTimeout * 1000))
        configuration.callRules.connectionTimeout = .milliseconds(Int64(connectionTimeout * 1000))
        configuration.callRules.reconnectWindow = .milliseconds(Int64(callReconnectWindow * 1000))
        configuration.callRules.refreshesTokens = !noTokenRefresh
        configuration.callRules.ringsThroughCalls = ringThroughCalls
        configuration.stunPort = noStun ? nil : stunPort
        configuration.callLogPath = memoryDB ? nil : (db ?? FileManager.default.currentDirectoryPath + "/confer-calls.sqlite")
        var logger = Logger(label: "confer.serve")
        logger.logLevel = .warning
        let server: SignalServer
        do { server = try await SignalServer(configuration: configuration, logger: logger) } catch {
            throw ValidationError("\(error)")
        }
        let scheme = server.usesTLS ? "https" : "http"
        let json = json
        // The STUN port is bound before the HTTP one, so it is known when the URL is printed.
        let stun = Atomic<Int>(0)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        try await server.run(onListening: { port in
            let url = "\(scheme)://\(shownHost):\(port)"
            let stunPort = stun.load(ordering: .relaxed)
            let stunJSON = stunPort > 0 ? #", "stun": \#(stunPort)"# : ""
            // Written straight to the file descriptor: a script reading the URL must not wait for a buffer.
            FileHandle.standardOutput.write(Data(((json ? #"{"url": "\#(url)"\#(stunJSON)}"# : url) + "\n").utf8))
            FileHandle.standardError.write(Data("confer serve: listening on \(url) (members: \(url)/v1/signal, calls: \(url)/v1/calls, admin: \(url)/v1/rooms, metrics: \(url)/metrics)\n".utf8))
            FileHandle.standardError.write(Data((stunPort > 0 ? "confer serve: STUN on udp \(shownHost):\(stunPort)\n" : "confer serve: no STUN responder (--no-stun)\n").utf8))
            FileHandle.standardError.write(Data("confer serve: call log \(server.calls.log.path ?? "in memory (--memory-db): lost at exit")\n".utf8))
        }, onSTUNListening: { port in stun.store(port, ordering: .relaxed) })
    }
}
