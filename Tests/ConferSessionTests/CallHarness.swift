import ConferSession
import Testing

/// Drives one ``CallSwitchboard`` in virtual time and keeps what each connection was sent
/// and what the log was given, so a test reads like a call: who dialed, who rang, who heard what.
struct CallHarness {
    var board: CallSwitchboard<SeededGenerator>
    var now = SessionTime(milliseconds: 5_000_000)
    private(set) var inbox: [SessionAddress: [CallServerMessage]] = [:]
    private(set) var ended: [SessionAddress: DisconnectReason] = [:]
    /// The log as the driver would keep it: the last record written per call.
    private(set) var log: [String: CallRecord] = [:]
    private(set) var writes = 0
    /// The renewed tokens each connection was sent, in order.
    private(set) var refreshed: [SessionAddress: [TokenClaims]] = [:]
    private var nextConnection: UInt64 = 1
    private var nextRef: UInt64 = 1

    /// The server's rules, but devices that never need to ping: tests of keepalive set it.
    static var quietRules: CallRules {
        var rules = CallRules()
        rules.keepaliveTimeout = .seconds(3600)
        return rules
    }

    init(rules: CallRules = CallHarness.quietRules) {
        board = CallSwitchboard(rules: rules, random: SeededGenerator(seed: 11))
    }

    /// A new connection signing in as `device` of `identity`.
    @discardableResult
    mutating func signIn(_ identity: String, _ device: String = "phone", token: TokenClaims? = nil) -> SessionAddress {
        let address = SessionAddress(identity: identity, connection: nextConnection)
        nextConnection += 1
        apply(board.signIn(CallDevice(identity: identity, device: device), token: token, on: address, at: now))
        return address
    }

    mutating func send(_ message: CallClientMessage, from address: SessionAddress) {
        apply(board.handle(message, from: address, at: now))
    }

    mutating func lose(_ address: SessionAddress) { apply(board.connectionLost(address, at: now)) }

    /// Dials `callee` from `address`; the call's id, or nil when refused.
    mutating func dial(_ callee: String, from address: SessionAddress, video: Bool = true, codec: String? = nil, items: [String: String]? = nil,
                       ringing: Double? = nil, connection: Double? = nil) -> String? {
        let ref = nextRef
        nextRef += 1
        send(.dial(ref: ref, callee: callee, video: video, customItems: items, ringingTimeout: ringing, connectionTimeout: connection, codec: codec),
             from: address)
        for message in inbox[address] ?? [] {
            if case .dialed(ref, let call) = message { return call.id }
        }
        return nil
    }

    struct Refused: Error {}

    /// Dials and expects the call placed.
    mutating func place(_ callee: String, from address: SessionAddress, video: Bool = true, items: [String: String]? = nil,
                        ringing: Double? = nil, connection: Double? = nil) throws -> String {
        guard let id = dial(callee, from: address, video: video, items: items, ringing: ringing, connection: connection) else { throw Refused() }
        return id
    }

    /// Moves time on by `duration`, ticking at every deadline on the way as a driver would.
    mutating func advance(_ duration: Duration) {
        let end = now + duration
        while let deadline = board.nextDeadline, deadline <= end {
            now = max(now, deadline)
            apply(board.tick(at: now))
        }
        now = end
        apply(board.tick(at: now))
    }

    mutating func apply(_ effects: [CallEffect]) {
        for effect in effects {
            switch effect {
            case .record(let record):
                log[record.id] = record
                writes += 1
            case .send(let address, let message): inbox[address, default: []].append(message)
            case .end(let address, let reason):
                #expect(ended[address] == nil, "a connection is ended once")
                ended[address] = reason
            case .refreshToken(let address, let claims): refreshed[address, default: []].append(claims)
            }
        }
    }

    /// The last view of call `id` that `address` was sent.
    func view(_ id: String, at address: SessionAddress) -> CallInfo? {
        for message in (inbox[address] ?? []).reversed() {
            switch message {
            case .dialed(_, let call) where call.id == id: return call
            case .incoming(let call) where call.id == id: return call
            case .call(let call) where call.id == id: return call
            default: continue
            }
        }
        return nil
    }

    /// The refusals `address` was sent, in order.
    func refusals(_ address: SessionAddress) -> [SessionRefusal] {
        (inbox[address] ?? []).compactMap { if case .refused(_, _, _, let reason) = $0 { reason } else { nil } }
    }

    /// Calls that rang on `address`.
    func incoming(_ address: SessionAddress) -> [String] {
        incomingCalls(address).map(\.id)
    }

    /// The calls that rang at `address`, as it was told.
    func incomingCalls(_ address: SessionAddress) -> [CallInfo] {
        (inbox[address] ?? []).compactMap { if case .incoming(let call) = $0 { call } else { nil } }
    }

    static func media(port: Int) -> MediaDescription {
        MediaDescription(host: "127.0.0.1", port: port, codec: "vp8", width: 320, height: 180, frameRate: 24)
    }

    /// Accepts on `callee`, both sides describe their media and report it decoded.
    mutating func connect(_ id: String, caller: SessionAddress, callee: SessionAddress) {
        send(.media(call: id, Self.media(port: 40000)), from: caller)
        send(.accept(call: id), from: callee)
        send(.media(call: id, Self.media(port: 40002)), from: callee)
        send(.mediaConnected(call: id), from: caller)
        send(.mediaConnected(call: id), from: callee)
    }
}
