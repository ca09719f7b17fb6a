public import ConferNet
public import ConferSession
public import Logging
import NIOSSL

/// One meeting, as an app holds it: joins through the signaling server, keeps the room's
/// state in step with the server's, reconnects within the grace window when the connection
/// drops, and offers the room's actions. State is observed through ``connection``, ``room``
/// and ``events``, each an `AsyncSequence` (the first two yield their current value first).
public actor MeetingClient {
    /// The connection's state.
    public nonisolated let connection = ObservedValue<ConnectionState>(.disconnected(nil))
    /// The room as this member sees it, once admitted.
    public nonisolated let room = ObservedValue<RoomSnapshot?>(nil)
    /// Every event from the moment of subscription.
    public nonisolated let events = EventBroadcast<MeetingEvent>()
    /// What the token says (read, not verified: the server verifies).
    public nonisolated let claims: TokenClaims
    /// The server's STUN responder, as its welcome named it (on the server's host); nil
    /// before the welcome or when the server runs none. ``MeetingMedia`` asks it where its
    /// socket is seen from (``MeetingMediaOptions/usesSTUN``).
    public private(set) var stunServer: UDPAddress?

    private let configuration: MeetingClientConfiguration
    private let url: String
    private let tls: TLSConfiguration?
    private let sniHostname: String?
    private let logger: Logger
    private var machine: ConnectionStateMachine
    private var link: SignalLink<ClientMessage, ServerMessage>?
    private var pinger: Task<Void, Never>?
    private var driver: Task<Void, Never>?
    private var endReason: DisconnectReason?
    private var refusal: SessionRefusal?
    private var joinWaiters: [CheckedContinuation<RoomSnapshot, any Error>] = []
    private var admitted = false
    private var leaving = false
    private var everConnected = false
    private var lastError: String?
    /// What the next join or resume presents: the configuration's token until the server
    /// renews it (``currentToken``).
    private var token: String

    /// A client for `configuration`; fails when the URL or token cannot be used.
    public init(configuration: MeetingClientConfiguration, logger: Logger = Logger(label: "confer.client")) throws(MeetingClientError) {
        self.configuration = configuration
        token = configuration.token
        claims = try configuration.unverifiedClaims()
        guard claims.room != TokenClaims.callScope else {
            throw .invalidConfiguration("the token is for calls, not for a room: mint one for the room (`confer token --room`)")
        }
        let endpoint = try configuration.webSocketEndpoint(path: "v1/signal")
        url = endpoint.url
        tls = endpoint.tls
        sniHostname = endpoint.sniHostname
        self.logger = logger
        machine = ConnectionStateMachine(grace: configuration.reconnectGrace)
    }

    /// This member's identity.
    public nonisolated var identity: String { claims.identity }

    /// The token this client resumes with: the configuration's, or the server's renewal of
    /// it while connected, valid past the first one's `exp` (``RoomRules/refreshesTokens``).
    /// An app that rejoins after a restart can keep it instead of minting one.
    public var currentToken: String { token }

    /// Connects and joins. Returns the room once this member is admitted (a participant
    /// waits for the host's approval; ``events`` says `waiting` meanwhile); throws when the
    /// server refuses, the host declines, or the server cannot be reached.
    @discardableResult
    public func join() async throws -> RoomSnapshot {
        if admitted, let snapshot = room.current { return snapshot }
        if driver == nil {
            guard case .connect = machine.start() else { throw MeetingClientError.ended(endReason ?? .left) }
            publishState()
            driver = Task { await self.drive() }
        }
        return try await withCheckedThrowingContinuation { joinWaiters.append($0) }
    }

    /// Leaves the room (or withdraws the join request) and waits for the server to end
    /// the session, at most two seconds.
    public func leave() async {
        leaving = true
        if let link, link.send(.leave) {
            let deadline = ContinuousClock.now + .seconds(2)
            while self.link != nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            self.link?.cut()
        }
        await driver?.value
    }

    /// Drops the signaling connection without leaving, as a network would; the client
    /// reconnects and resumes the same member within the grace window.
    public func dropConnection() { link?.cut() }

    // MARK: - Actions (the server refuses what this member's role may not do)

    /// Host: admit a waiting participant.
    public func approve(_ identity: String) { send(.approve(identity: identity)) }
    /// Host: refuse a waiting participant.
    public func decline(_ identity: String) { send(.decline(identity: identity)) }
    /// Host: remove a member; its tokens from before the kick no longer admit it.
    public func kick(_ identity: String) { send(.kick(identity: identity)) }
    /// Host: end the meeting for everyone.
    public func closeRoom() { send(.closeRoom) }
    /// Host: hand the host role to a participant.
    public func transferHost(to identity: String) { send(.transferHost(identity: identity)) }
    /// Host: turn a member's microphone or camera off.
    public func mute(_ identity: String, device: MediaDevice) { send(.turnOff(identity: identity, device: device)) }
    /// Host: ask a member to turn a device on; the member answers.
    public func ask(_ identity: String, toTurnOn device: MediaDevice) { send(.requestDevice(identity: identity, device: device)) }
    /// Answer a device request addressed to this member.
    public func answer(_ request: DeviceRequest, accept: Bool) { send(.answerDeviceRequest(id: request.id, accept: accept)) }
    /// Turn one of this member's own devices on or off.
    public func setDevice(_ device: MediaDevice, on: Bool) { send(.setDevice(device: device, on: on)) }
    /// Observer: apply to become a participant.
    public func applyForParticipant() { send(.applyForParticipant) }
    /// Host: answer an observer's application.
    public func answerApplication(from identity: String, approve: Bool) { send(.answerApplication(identity: identity, approve: approve)) }
    /// Send a chat message (or, with `kind`, a custom message) to everyone or to listed members.
    public func sendMessage(_ text: String, to recipients: [String]? = nil, kind: String? = nil) {
        send(.send(to: recipients, kind: kind, text: text))
    }
    /// Say where (and, the host, how) this member exchanges media.
    public func announceMedia(_ description: MediaDescription) { send(.announceMedia(description)) }
    /// Report this member's live figures.
    public func report(_ info: ConnectInfo) { send(.report(info)) }

    private func send(_ message: ClientMessage) { link?.send(message) }

    // MARK: - The connection

    private func drive() async {
        while true {
            let link = SignalLink<ClientMessage, ServerMessage>()
            self.link = link
            link.send(.join(token: token, room: claims.room, devices: configuration.devices))
            var code: UInt16?
            var connected = true
            do {
                code = try await link.run(url: url, tls: tls, sniHostname: sniHostname, logger: logger) { [weak self] message in
                    await self?.receive(message, on: link)
                }
            } catch {
                connected = false
                lastError = ConnectionFailure.describe(error)
                logger.debug("signaling connection failed: \(error)")
            }
            self.link = nil
            pinger?.cancel()
            pinger = nil
            if endReason == nil, let code, let reason = DisconnectReason(closeCode: code) { endReason = reason }
            if endReason == nil, leaving { endReason = .left }
            if let reason = endReason {
                finish(reason)
                return
            }
            if !connected, !everConnected {
                failWaiters(MeetingClientError.unreachable("nothing accepts a WebSocket at \(url) (\(lastError ?? "closed")): is the server running there?"))
                machine.unreachable()
                publishState()
                room.finish()
                events.finish()
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

    private func receive(_ message: ServerMessage, on link: SignalLink<ClientMessage, ServerMessage>) {
        guard link === self.link else { return }
        switch message {
        case .welcome(_, _, _, let keepalive, _, let stunPort):
            stunServer = ConferClient.stunServer(of: configuration.server, port: stunPort)
            everConnected = true
            machine.opened()
            publishState()
            startPinging(every: PingInterval.forKeepalive(keepalive), on: link)
        case .waiting(let request):
            events.send(.waiting(request))
        case .joined(let snapshot):
            admitted = true
            room.set(snapshot)
            events.send(.joined(snapshot))
            let waiters = joinWaiters
            joinWaiters.removeAll()
            for waiter in waiters { waiter.resume(returning: snapshot) }
        case .event(let event):
            if case .message(let message) = event, room.current?.messages.contains(where: { $0.id == message.id }) == true { return }
            room.update { $0?.apply(event) }
            events.send(.room(event))
        case .refused(let action, let reason):
            if action == "join" { refusal = reason }
            events.send(.refused(action: action, reason: reason))
        case .disconnected(let reason):
            endReason = reason
        case .pong:
            break
        case .tokenRefreshed(let token):
            self.token = token
        }
    }

    private func startPinging(every interval: Duration, on link: SignalLink<ClientMessage, ServerMessage>) {
        pinger?.cancel()
        pinger = link.keepAlive(every: interval) { .ping(sent: $0) }
    }

    private func finish(_ reason: DisconnectReason) {
        machine.ended(reason)
        publishState()
        if let refusal { failWaiters(MeetingClientError.refused(refusal)) } else { failWaiters(MeetingClientError.ended(reason)) }
        room.finish()
        events.finish()
    }

    private func failWaiters(_ error: MeetingClientError) {
        let waiters = joinWaiters
        joinWaiters.removeAll()
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    private func publishState() {
        connection.set(machine.state)
        events.send(.connection(machine.state))
        if case .disconnected = machine.state { connection.finish() }
    }
}
