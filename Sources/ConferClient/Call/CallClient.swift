public import ConferNet
public import ConferSession
public import Logging
import NIOSSL

/// A user's device for one-to-one calls: signs in to the server's call endpoint, dials,
/// rings for incoming calls, keeps every call's state in step with the server's, and
/// reconnects within the window when the connection drops (the server keeps the calls as
/// long). ``ringing`` yields the calls ringing on this device now, then every change;
/// ``incoming`` each new one.
public actor CallClient {
    /// The connection's state.
    public nonisolated let connection = ObservedValue<ConnectionState>(.disconnected(nil))
    /// The calls ringing on this device, current value first.
    public nonisolated let ringing = ObservedValue<[Call]>([])
    /// Each call that starts ringing here, from the moment of subscription.
    public nonisolated let incoming = EventBroadcast<Call>()
    /// The signed-in user.
    public nonisolated let identity: String
    /// This device's name.
    public nonisolated let device: String
    /// The token this device signs in again with: the configuration's, or the server's
    /// renewal of it while signed in (``CallRules/refreshesTokens``), valid past the first
    /// one's `exp`.
    public var currentToken: String { token }
    /// The server's STUN responder, as its welcome named it (on the server's host); nil
    /// before the welcome or when the server runs none. Each ``Call`` keeps the one known
    /// when it was made (``Call/stunServer``).
    public private(set) var stunServer: UDPAddress?

    private let configuration: CallClientConfiguration
    private let endpoint: SignalEndpoint
    private let logger: Logger
    private var machine: ConnectionStateMachine
    private var link: SignalLink<CallClientMessage, CallServerMessage>?
    private var driver: Task<Void, Never>?
    private var pinger: Task<Void, Never>?
    private var calls: [String: Call] = [:]
    /// The call each answered dial made, until `dial` returns it. The answer's resumption may
    /// run after later messages: a callee that declines at once ends the call, which leaves
    /// ``calls`` before `dial` returns; made again from the answer's stale view, it would
    /// ring forever.
    private var dialed: [String: Call] = [:]
    private var waiters: [UInt64: CheckedContinuation<CallServerMessage, any Error>] = [:]
    private var signInWaiters: [CheckedContinuation<Void, any Error>] = []
    private var nextRef: UInt64 = 1
    private var endReason: DisconnectReason?
    private var refusal: SessionRefusal?
    private var everConnected = false
    private var stopping = false
    private var lastError: String?
    /// What the next sign-in presents: the configuration's token until the server renews it.
    private var token: String

    /// A client for `configuration`; fails when the URL or token cannot be used.
    public init(configuration: CallClientConfiguration, logger: Logger = Logger(label: "confer.calls")) throws(CallClientError) {
        // The same server, token format and TLS rules as a meeting's; another endpoint.
        var server = MeetingClientConfiguration(server: configuration.server, token: configuration.token)
        server.trustedCertificates = configuration.trustedCertificates
        let claims = try server.unverifiedClaims()
        // The server would refuse it as for another room; say what the token is for instead.
        guard claims.room == TokenClaims.callScope else {
            throw .invalidConfiguration("the token admits to room \(claims.room), not to calls: mint one for calls (`confer token --calls`)")
        }
        identity = claims.identity
        endpoint = try server.webSocketEndpoint(path: "v1/calls")
        guard !configuration.device.isEmpty, configuration.device.utf8.count <= 64 else {
            throw .invalidConfiguration("the device name must have 1 to 64 bytes")
        }
        device = configuration.device
        self.configuration = configuration
        token = configuration.token
        self.logger = logger
        machine = ConnectionStateMachine(grace: configuration.reconnectWindow)
    }

    /// Connects and signs in; returns once the server welcomed this device. Throws when the
    /// server refuses the token or cannot be reached.
    public func start() async throws {
        if everConnected, case .connected = machine.state { return }
        if driver == nil {
            guard case .connect = machine.start() else { throw CallClientError.ended(endReason ?? .left) }
            publishState()
            driver = Task { await self.drive() }
        }
        try await withCheckedThrowingContinuation { signInWaiters.append($0) }
    }

    /// Signs out: closes the connection (calls in progress see this side lost) and waits
    /// for the connection to end.
    public func stop() async {
        stopping = true
        link?.cut()
        await driver?.value
    }

    /// Drops the connection without signing out, as a network would; the client reconnects.
    public func dropConnection() { link?.cut() }

    /// Calls `callee`; returns the call once it rings (its ``Call/state`` follows it from
    /// there). Throws the server's refusal: ``SessionRefusal/calleeUnknown``,
    /// ``SessionRefusal/calleeOffline``, ``SessionRefusal/calleeBusy``, ``SessionRefusal/selfCall``,
    /// ``SessionRefusal/invalidParameters``.
    /// `codec` is the video codec this device will send (`vp8`, `vp9`, `h264`), which the
    /// callee's devices see while the call rings (``CallInfo/callerCodec``).
    public func dial(_ callee: String, video: Bool, codec: String? = nil, customItems: [String: String]? = nil, ringingTimeout: Duration? = nil,
                     connectionTimeout: Duration? = nil) async throws -> Call {
        let answer = try await request { ref in
            .dial(ref: ref, callee: callee, video: video, customItems: customItems,
                  ringingTimeout: ringingTimeout.map(Self.seconds), connectionTimeout: connectionTimeout.map(Self.seconds), codec: codec)
        }
        guard case .dialed(_, let info) = answer else { throw CallClientError.unreachable("unexpected answer to dial") }
        return dialed.removeValue(forKey: info.id) ?? call(for: info)
    }

    /// A page of this user's call log, newest first.
    public func callLog(_ query: CallLogQuery = CallLogQuery()) async throws -> CallLogPage {
        let answer = try await request { ref in .log(ref: ref, query) }
        guard case .log(_, let page) = answer else { throw CallClientError.unreachable("unexpected answer to log") }
        return page
    }

    /// Every call this device knows of that has not ended.
    public var activeCalls: [Call] { calls.values.filter { $0.state.current.phase != .ended }.sorted { $0.id < $1.id } }

    // MARK: - The connection

    private func request(_ make: (UInt64) -> CallClientMessage) async throws -> CallServerMessage {
        guard let link else { throw CallClientError.ended(endReason ?? .timedOut) }
        let ref = nextRef
        nextRef += 1
        return try await withCheckedThrowingContinuation { continuation in
            waiters[ref] = continuation
            if !link.send(make(ref)) {
                waiters.removeValue(forKey: ref)
                continuation.resume(throwing: CallClientError.ended(endReason ?? .timedOut))
            }
        }
    }

    fileprivate func send(_ message: CallClientMessage) { link?.send(message) }

    private func call(for info: CallInfo) -> Call {
        if let existing = calls[info.id] {
            existing.apply(info)
            return existing
        }
        let call = Call(info: info, identity: identity, stunServer: stunServer) { [weak self] message in await self?.send(message) }
        calls[info.id] = call
        return call
    }

    private func drive() async {
        while true {
            let link = SignalLink<CallClientMessage, CallServerMessage>()
            self.link = link
            link.send(.hello(token: token, device: device))
            var code: UInt16?
            var connected = true
            do {
                code = try await link.run(url: endpoint.url, tls: endpoint.tls, sniHostname: endpoint.sniHostname, logger: logger) { [weak self] message in
                    await self?.receive(message, on: link)
                }
            } catch {
                connected = false
                lastError = ConnectionFailure.describe(error)
            }
            self.link = nil
            pinger?.cancel()
            pinger = nil
            failRequests(CallClientError.unreachable("the connection dropped"))
            if endReason == nil, let code, let reason = DisconnectReason(closeCode: code) { endReason = reason }
            if endReason == nil, stopping { endReason = .left }
            if let reason = endReason {
                finish(reason)
                return
            }
            if !connected, !everConnected {
                let error = CallClientError.unreachable("nothing accepts a WebSocket at \(endpoint.url) (\(lastError ?? "closed")): is the server running there?")
                failSignIn(error)
                finish(nil, error: error)
                return
            }
            var action = machine.lost(at: SessionTime.now())
            publishState()
            while action == .none {
                // Past the grace the machine has given up: the session is over.
                guard let wait = machine.delayBeforeAttempt(at: SessionTime.now()) else {
                    finish(.timedOut)
                    return
                }
                try? await Task.sleep(for: wait)
                action = machine.tick(at: SessionTime.now())
            }
        }
    }

    private func receive(_ message: CallServerMessage, on link: SignalLink<CallClientMessage, CallServerMessage>) {
        guard link === self.link else { return }
        switch message {
        case .welcome(_, _, let keepalive, _, let stunPort):
            stunServer = ConferClient.stunServer(of: configuration.server, port: stunPort)
            everConnected = true
            machine.opened()
            publishState()
            startPinging(every: PingInterval.forKeepalive(keepalive), on: link)
            let waiters = signInWaiters
            signInWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        case .dialed(let ref, let info):
            let call = call(for: info)
            if let waiter = waiters.removeValue(forKey: ref) {
                dialed[info.id] = call
                waiter.resume(returning: message)
            }
        case .log(let ref, _):
            waiters.removeValue(forKey: ref)?.resume(returning: message)
        case .incoming(let info):
            let known = calls[info.id] != nil
            let call = call(for: info)
            if !known {
                incoming.send(call)
            }
            updateRinging()
        case .call(let info):
            let call = call(for: info)
            call.apply(info)
            if info.phase == .ended { calls.removeValue(forKey: info.id) }
            updateRinging()
        case .refused(let action, let ref, let id, let reason):
            if action == "hello" { refusal = reason }
            if let ref, let waiter = waiters.removeValue(forKey: ref) {
                waiter.resume(throwing: CallClientError.refused(reason))
            } else if let id, let call = calls[id] {
                call.events.send(.refused(action: action, reason: reason))
            }
        case .disconnected(let reason):
            endReason = reason
        case .pong:
            break
        case .tokenRefreshed(let token):
            self.token = token
        }
    }

    private func updateRinging() {
        let now = calls.values.filter { !$0.isCaller && $0.state.current.phase == .ringing }.sorted { $0.id < $1.id }
        if now != ringing.current { ringing.set(now) }
    }

    private func startPinging(every interval: Duration, on link: SignalLink<CallClientMessage, CallServerMessage>) {
        pinger?.cancel()
        pinger = link.keepAlive(every: interval) { .ping(sent: $0) }
    }

    /// Ends the client for `reason`; nil when the server could never be reached, and `error` says why.
    private func finish(_ reason: DisconnectReason?, error: CallClientError? = nil) {
        if let reason { machine.ended(reason) } else { machine.unreachable() }
        publishState()
        let ended = reason.map { CallClientError.ended($0) } ?? error ?? CallClientError.ended(.timedOut)
        failSignIn(refusal.map { CallClientError.refused($0) } ?? ended)
        failRequests(ended)
        let now = SessionTime.now()
        for call in calls.values { call.abandon(at: now) }
        calls.removeAll()
        updateRinging()
        ringing.finish()
        incoming.finish()
    }

    private func failSignIn(_ error: CallClientError) {
        let waiters = signInWaiters
        signInWaiters.removeAll()
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    private func failRequests(_ error: CallClientError) {
        let pending = waiters
        waiters.removeAll()
        for (_, waiter) in pending { waiter.resume(throwing: error) }
    }

    private func publishState() {
        connection.set(machine.state)
        if case .disconnected = machine.state { connection.finish() }
    }

    private static func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
}
