import ConferSession
import Testing

/// Drives one ``RoomState`` in virtual time and keeps what each connection was sent, so a
/// test reads like a meeting: who joined, who was told what.
struct RoomHarness {
    var room: RoomState<SeededGenerator>
    var now = SessionTime(milliseconds: 1_000_000)
    private(set) var inbox: [SessionAddress: [ServerMessage]] = [:]
    private(set) var ended: [SessionAddress: DisconnectReason] = [:]
    private(set) var discarded = false
    /// The renewed tokens each session was sent, in order.
    private(set) var refreshed: [SessionAddress: [TokenClaims]] = [:]
    private var nextConnection: UInt64 = 1

    init(rules: RoomRules = RoomRules(), createdByAdministrator: Bool = false, id: String = "room") {
        room = RoomState(info: RoomInfo(id: id), rules: rules, createdByAdministrator: createdByAdministrator,
                         at: SessionTime(milliseconds: 1_000_000), random: SeededGenerator(seed: 7))
    }

    func claims(_ identity: String, _ role: MemberRole, room: String = "room", lifetime: Duration = .seconds(3600)) -> TokenClaims {
        TokenClaims(identity: identity, name: identity.uppercased(), room: room, role: role, notBefore: now, lifetime: lifetime)
    }

    /// A new connection for `identity` joining with `claims` as they are.
    mutating func join(_ claims: TokenClaims) -> SessionAddress {
        let address = SessionAddress(identity: claims.identity, connection: nextConnection)
        nextConnection += 1
        apply(room.join(claims, on: address, at: now))
        return address
    }

    /// A new connection for `identity` joining with `role`.
    @discardableResult
    mutating func join(_ identity: String, _ role: MemberRole, lifetime: Duration = .seconds(3600), devices: DeviceStates? = nil) -> SessionAddress {
        let address = SessionAddress(identity: identity, connection: nextConnection)
        nextConnection += 1
        apply(room.join(claims(identity, role, lifetime: lifetime), devices: devices, on: address, at: now))
        return address
    }

    mutating func send(_ message: ClientMessage, from address: SessionAddress) {
        apply(room.handle(message, from: address, at: now))
    }

    mutating func lose(_ address: SessionAddress) { apply(room.connectionLost(address, at: now)) }

    mutating func administer(_ action: RoomState<SeededGenerator>.AdministratorAction) throws(SessionRefusal) {
        let effects = try room.administer(action, at: now)
        apply(effects)
    }

    /// Moves time on by `duration`, ticking at every deadline on the way as a driver would.
    mutating func advance(_ duration: Duration) {
        let end = now + duration
        while let deadline = room.nextDeadline, deadline <= end, !room.isClosed {
            now = max(now, deadline)
            apply(room.tick(at: now))
        }
        now = end
        apply(room.tick(at: now))
    }

    mutating func apply(_ effects: [RoomEffect]) {
        for effect in effects {
            switch effect {
            case .send(let address, let message): inbox[address, default: []].append(message)
            case .end(let address, let reason):
                #expect(ended[address] == nil, "a session is ended once")
                ended[address] = reason
            case .refreshToken(let address, let claims): refreshed[address, default: []].append(claims)
            case .discard: discarded = true
            }
        }
    }

    /// Everything `address` was sent, and forgets it.
    mutating func take(_ address: SessionAddress) -> [ServerMessage] {
        defer { inbox[address] = [] }
        return inbox[address] ?? []
    }

    /// The events `address` was sent, and forgets every message.
    mutating func events(_ address: SessionAddress) -> [RoomEvent] {
        take(address).compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// The refusals `address` was sent, and forgets every message.
    mutating func refusals(_ address: SessionAddress) -> [SessionRefusal] {
        take(address).compactMap { if case .refused(_, let reason) = $0 { reason } else { nil } }
    }

    mutating func clear() { inbox = [:] }

    /// A host and approved participants, with inboxes cleared.
    mutating func meeting(participants: [String]) -> (host: SessionAddress, members: [SessionAddress]) {
        let host = join("host", .host)
        var members: [SessionAddress] = []
        for identity in participants {
            let address = join(identity, .participant)
            send(.approve(identity: identity), from: host)
            members.append(address)
        }
        clear()
        return (host, members)
    }
}
