public import ConferSession
public import Logging

/// Owns every call and every device connection of one server, and drives the
/// ``CallSwitchboard`` on the wall clock: a device's messages come in here, the log is
/// written before anyone hears of a change, and the messages go out to the devices they
/// address. The only place call state changes.
public actor CallHub {
    private var board: CallSwitchboard<SystemRandomNumberGenerator>
    private var outboxes: [SessionAddress: AsyncStream<SessionOutbound>.Continuation] = [:]
    private var nextConnection: UInt64 = 1
    private var closed = false
    /// The log every call is written to.
    public nonisolated let log: CallLog
    let metrics: ServerMetrics
    private let logger: Logger
    private let clock: @Sendable () -> SessionTime
    /// Signs a device's renewed token (``CallEffect/refreshToken(_:_:)``); nil: none is sent.
    private let signer: (@Sendable (TokenClaims) async -> String)?

    /// A hub with `rules`, writing to `log`, reading time from `clock`.
    public init(rules: CallRules = CallRules(), log: CallLog, metrics: ServerMetrics = ServerMetrics(),
                logger: Logger = Logger(label: "confer.calls"), clock: @escaping @Sendable () -> SessionTime = { SessionTime.now() },
                signer: (@Sendable (TokenClaims) async -> String)? = nil) {
        board = CallSwitchboard(rules: rules, random: SystemRandomNumberGenerator())
        // A user in the log is known: calling it while it is signed out fails as offline.
        if let users = try? log.users() { board.rememberUsers(users) }
        self.log = log
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
        self.signer = signer
    }

    /// The rules calls get.
    public var rules: CallRules { board.rules }
    /// The STUN responder's port, named in each welcome (``useSTUN(port:)``).
    public private(set) var stunPort: Int?

    /// Names the server's STUN responder in every welcome from now on.
    public func useSTUN(port: Int?) { stunPort = port }

    func newConnection() -> UInt64 {
        defer { nextConnection += 1 }
        return nextConnection
    }

    /// A connection whose token verified signs in as `device`.
    func signIn(_ device: CallDevice, token: TokenClaims? = nil, on address: SessionAddress, outbox: AsyncStream<SessionOutbound>.Continuation) {
        guard !closed else {
            outbox.yield(.text(Self.text(.refused(action: "hello", ref: nil, call: nil, reason: .roomClosed))))
            outbox.yield(.close(code: DisconnectReason.serverShutdown.closeCode, reason: DisconnectReason.serverShutdown.rawValue))
            outbox.finish()
            return
        }
        outboxes[address] = outbox
        apply(board.signIn(device, token: token, on: address, at: clock()))
    }

    /// A decoded message from the device on `address`.
    func handle(_ message: CallClientMessage, from address: SessionAddress) {
        if case .log(let ref, let query) = message {
            answerLog(ref: ref, query: query, to: address)
            return
        }
        let wasActive = board.activeCalls
        let effects = board.handle(message, from: address, at: clock())
        if case .dial = message, board.activeCalls > wasActive { metrics.callDialed() }
        apply(effects)
    }

    /// Tells `address` its message was refused (unreadable, or too fast).
    func refuse(_ address: SessionAddress, action: String, reason: SessionRefusal) {
        metrics.badMessage()
        metrics.refused(reason)
        outboxes[address]?.yield(.text(Self.text(.refused(action: action, ref: nil, call: nil, reason: reason))))
    }

    /// The connection on `address` closed.
    func connectionClosed(_ address: SessionAddress) {
        outboxes.removeValue(forKey: address)?.finish()
        apply(board.connectionLost(address, at: clock()))
    }

    /// Moves the calls' time on; call a few times a second.
    public func tick() {
        let now = clock()
        if let deadline = board.nextDeadline, deadline <= now { apply(board.tick(at: now)) }
        metrics.record(calls: board.activeCalls, devices: board.onlineDevices)
    }

    /// Ends every call (logged as lost) and connection, and refuses sign-ins from now on.
    public func shutDown() {
        closed = true
        apply(board.shutDown(at: clock()))
        for (_, outbox) in outboxes { outbox.finish() }
        outboxes.removeAll()
    }

    private func answerLog(ref: UInt64, query: CallLogQuery, to address: SessionAddress) {
        guard let device = board.device(at: address) else {
            outboxes[address]?.yield(.text(Self.text(.refused(action: "log", ref: ref, call: nil, reason: .outOfOrder))))
            return
        }
        guard query.isValid else {
            metrics.refused(.invalidParameters)
            outboxes[address]?.yield(.text(Self.text(.refused(action: "log", ref: ref, call: nil, reason: .invalidParameters))))
            return
        }
        do {
            // The identity is the token's: a user reads its own calls and nobody else's.
            let page = try log.page(for: device.identity, query)
            outboxes[address]?.yield(.text(Self.text(.log(ref: ref, page: page))))
        } catch {
            logger.error("\(error)")
            outboxes[address]?.yield(.text(Self.text(.refused(action: "log", ref: ref, call: nil, reason: .wrongCallState))))
        }
    }

    private func apply(_ effects: [CallEffect]) {
        var pending: [CallRecord] = []
        for effect in effects {
            if case .record(let record) = effect { pending.append(record) }
        }
        // Written before anyone hears: a side told "ended" finds the call in its log.
        if !pending.isEmpty {
            do { try log.write(pending) } catch {
                metrics.callLogFailed()
                logger.error("\(error)")
            }
        }
        for effect in effects {
            switch effect {
            case .record(let record):
                if let result = record.result { metrics.callEnded(result) }
            case .send(let address, var message):
                if case .refused(_, _, _, let reason) = message { metrics.refused(reason) }
                if case .welcome(let identity, let device, let keepalive, let time, _) = message, let stunPort {
                    message = .welcome(identity: identity, device: device, keepaliveSeconds: keepalive, serverTime: time, stunPort: stunPort)
                }
                guard let outbox = outboxes[address] else { continue }
                if case .dropped = outbox.yield(.text(Self.text(message))) {
                    // A device that does not read cannot hold the server's memory.
                    outboxes.removeValue(forKey: address)?.finish()
                }
            case .end(let address, let reason):
                metrics.ended(reason)
                guard let outbox = outboxes.removeValue(forKey: address) else { continue }
                outbox.yield(.text(Self.text(.disconnected(reason: reason))))
                outbox.yield(.close(code: reason.closeCode, reason: reason.rawValue))
                outbox.finish()
            case .refreshToken(let address, let claims):
                guard let signer, let outbox = outboxes[address] else { continue }
                Task { outbox.yield(.text(Self.text(.tokenRefreshed(token: await signer(claims))))) }
            }
        }
    }

    private static func text(_ message: CallServerMessage) -> String { String(decoding: SignalCodec.encode(message), as: UTF8.self) }
}
