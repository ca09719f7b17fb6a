public import ConferSession

/// Owns every room and every member connection of one server, and drives each room's
/// ``RoomState`` on the wall clock: a connection's messages come in here, the effects go
/// out to the connections they address. The only place room state changes.
public actor RoomHub {
    /// A room's figures for the admin API's list (now ConferSession's, which clients share).
    public typealias RoomSummary = ConferSession.RoomSummary

    private var store: any RoomStore
    private var outboxes: [SessionAddress: AsyncStream<SessionOutbound>.Continuation] = [:]
    private var roomOf: [SessionAddress: String] = [:]
    private var nextConnection: UInt64 = 1
    /// Administrators watching a room, by room: what each was last sent, so only changes go out.
    private var watchers: [String: [UInt64: (continuation: AsyncStream<RoomWatchUpdate>.Continuation, last: RoomSnapshot)]] = [:]
    private var nextWatcher: UInt64 = 1
    /// Snapshots sent to watchers since the start (the first of each watch among them).
    private(set) var watchUpdates = 0
    /// Watch connections that have not yet written their close (see ``watchClosed()``).
    private(set) var openWatches = 0
    private var closed = false
    /// The rules new rooms get.
    public let rules: RoomRules
    /// The STUN responder's port, named in each welcome (``useSTUN(port:)``).
    public private(set) var stunPort: Int?
    let metrics: ServerMetrics
    private let clock: @Sendable () -> SessionTime
    /// Signs a member's renewed token (``RoomEffect/refreshToken(_:_:)``); nil: none is sent.
    private let signer: (@Sendable (TokenClaims) async -> String)?

    /// A hub keeping rooms in `store`, reading time from `clock`, signing renewed tokens with
    /// `signer` (the server's ``TokenIssuer``).
    public init(rules: RoomRules = RoomRules(), store: any RoomStore = InMemoryRoomStore(), metrics: ServerMetrics = ServerMetrics(),
                clock: @escaping @Sendable () -> SessionTime = { SessionTime.now() },
                signer: (@Sendable (TokenClaims) async -> String)? = nil) {
        self.rules = rules
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.signer = signer
    }

    /// A number for a new connection.
    func newConnection() -> UInt64 {
        defer { nextConnection += 1 }
        return nextConnection
    }

    /// Whether the hub has shut down (new joins are refused).
    var isShutDown: Bool { closed }

    // MARK: - Sessions

    /// A connection whose token verified joins its room (created on first join); from now
    /// on what the room sends `address` goes to `outbox`.
    func join(_ claims: TokenClaims, devices: DeviceStates? = nil, on address: SessionAddress, outbox: AsyncStream<SessionOutbound>.Continuation) {
        guard !closed else {
            outbox.yield(.text(Self.text(.refused(action: "join", reason: .roomClosed))))
            outbox.yield(.close(code: DisconnectReason.serverShutdown.closeCode, reason: DisconnectReason.serverShutdown.rawValue))
            outbox.finish()
            return
        }
        let now = clock()
        outboxes[address] = outbox
        roomOf[address] = claims.room
        var room = store.room(claims.room) ?? ServerRoom(info: RoomInfo(id: claims.room), rules: rules, at: now, random: SystemRandomNumberGenerator())
        let effects = room.join(claims, devices: devices, on: address, at: now)
        store.save(room)
        apply(effects, room: claims.room)
    }

    /// A decoded message from the session on `address`.
    func handle(_ message: ClientMessage, from address: SessionAddress) {
        guard let id = roomOf[address], var room = store.room(id) else { return }
        let effects = room.handle(message, from: address, at: clock())
        store.save(room)
        if case .send = message, effects.contains(where: { if case .send(_, .event(.message)) = $0 { true } else { false } }) {
            metrics.messageAccepted()
        }
        apply(effects, room: id)
    }

    /// Tells `address` its message was refused (it could not be read, or came too fast).
    func refuse(_ address: SessionAddress, action: String, reason: SessionRefusal) {
        metrics.badMessage()
        metrics.refused(reason)
        outboxes[address]?.yield(.text(Self.text(.refused(action: action, reason: reason))))
    }

    /// The connection on `address` closed. Its member goes offline (and leaves after the
    /// grace) unless the server had already ended the session.
    func connectionClosed(_ address: SessionAddress) {
        outboxes.removeValue(forKey: address)?.finish()
        guard let id = roomOf.removeValue(forKey: address), var room = store.room(id) else { return }
        let effects = room.connectionLost(address, at: clock())
        store.save(room)
        apply(effects, room: id)
    }

    /// Moves every room's time on; call a few times a second.
    public func tick() {
        let now = clock()
        for id in store.roomIDs {
            guard var room = store.room(id), let deadline = room.nextDeadline, deadline <= now else { continue }
            let effects = room.tick(at: now)
            store.save(room)
            apply(effects, room: id)
        }
        var members = 0
        for id in store.roomIDs { members += store.room(id)?.members.count ?? 0 }
        metrics.record(rooms: store.roomIDs.count, members: members, connections: outboxes.count)
    }

    /// Ends every session with `serverShutdown` and refuses joins from now on.
    public func shutDown() {
        closed = true
        for id in store.roomIDs {
            guard var room = store.room(id) else { continue }
            apply(room.shutDown(), room: id)
        }
        for (_, outbox) in outboxes { outbox.finish() }
        outboxes.removeAll()
        for id in Array(watchers.keys) { publish(id) }
    }

    // MARK: - Administrators

    /// Every open room.
    public func rooms() -> [RoomSummary] {
        store.roomIDs.compactMap { id in store.room(id).map(Self.summary) }
    }

    /// A room as an administrator sees it, with each member's last reported figures.
    public func room(_ id: String) -> RoomSnapshot? { store.room(id)?.administratorSnapshot }

    /// The room as an administrator sees it (``room(_:)``), now and after every change, until it
    /// closes or the hub shuts down; nil for a room that is not open.
    ///
    /// A watcher that reads slowly gets the newest state, not every one in between: the stream
    /// keeps one update waiting, so no watcher holds the server's memory. Every watcher of a
    /// change gets the same update, so its JSON is made once.
    public func watch(_ id: String) -> AsyncStream<RoomWatchUpdate>? {
        guard !closed, let snapshot = store.room(id)?.administratorSnapshot else { return nil }
        let (stream, continuation) = AsyncStream<RoomWatchUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = nextWatcher
        nextWatcher += 1
        continuation.yield(RoomWatchUpdate(snapshot))
        watchUpdates += 1
        metrics.watchUpdateSent()
        watchers[id, default: [:]][key] = (continuation, snapshot)
        openWatches += 1
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unwatch(id, key) }
        }
        metrics.record(watchers: watcherCount)
        return stream
    }

    /// A watch's connection has written its close (or failed): one fewer for shutdown to wait for.
    func watchClosed() { openWatches = max(0, openWatches - 1) }

    /// After ``shutDown()``: waits, at most `limit`, for every watch connection to write its
    /// close, so the HTTP server that stops next does not cut one before it says why.
    func waitForWatchesToClose(upTo limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while openWatches > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Administrators watching rooms now.
    var watcherCount: Int { watchers.values.reduce(0) { $0 + $1.count } }

    private func unwatch(_ id: String, _ key: UInt64) {
        guard watchers[id]?.removeValue(forKey: key) != nil else { return }
        if watchers[id]?.isEmpty == true { watchers[id] = nil }
        metrics.record(watchers: watcherCount)
    }

    /// Sends the room's watchers its state if it changed; ends their streams if it is gone.
    private func publish(_ id: String) {
        guard let watching = watchers[id] else { return }
        guard !closed, let snapshot = store.room(id)?.administratorSnapshot else {
            watchers[id] = nil
            for watcher in watching.values { watcher.continuation.finish() }
            metrics.record(watchers: watcherCount)
            return
        }
        let update = RoomWatchUpdate(snapshot)
        for (key, watcher) in watching where watcher.last != snapshot {
            watchers[id]?[key]?.last = snapshot
            watcher.continuation.yield(update)
            watchUpdates += 1
            metrics.watchUpdateSent()
        }
    }

    /// Opens a room ahead of its first member; it closes if nobody joins in time.
    public func createRoom(_ info: RoomInfo, memberLimit: Int?) throws(SessionRefusal) -> RoomSummary {
        guard !closed else { throw .roomClosed }
        guard info.id != TokenClaims.callScope else { throw .wrongRoom }
        if store.room(info.id) != nil { throw .outOfOrder }
        var roomRules = rules
        if let memberLimit { roomRules.memberLimit = memberLimit }
        let room = ServerRoom(info: info, rules: roomRules, createdByAdministrator: true, at: clock(), random: SystemRandomNumberGenerator())
        store.save(room)
        return Self.summary(room)
    }

    /// Carries out an administrator's action on a room.
    public func administer(_ action: ServerRoom.AdministratorAction, in id: String) throws(SessionRefusal) {
        guard var room = store.room(id) else { throw .unknownRequest }
        let effects: [RoomEffect]
        do { effects = try room.administer(action, at: clock()) } catch {
            metrics.refused(error)
            throw error
        }
        store.save(room)
        if case .send = action { metrics.messageAccepted() }
        apply(effects, room: id)
    }

    // MARK: - Effects

    private func apply(_ effects: [RoomEffect], room id: String) {
        // A broadcast is one message to many sessions in a row: encode it once.
        var encoded: (message: ServerMessage, text: String)?
        for effect in effects {
            switch effect {
            case .send(let address, var message):
                if case .welcome(let identity, let role, let room, let keepalive, let time, _) = message, let stunPort {
                    message = .welcome(identity: identity, role: role, room: room, keepaliveSeconds: keepalive, serverTime: time, stunPort: stunPort)
                }
                switch message {
                case .refused(_, let reason): metrics.refused(reason)
                case .joined: metrics.joined()
                default: break
                }
                guard let outbox = outboxes[address] else { continue }
                let text: String
                if let encoded, encoded.message == message { text = encoded.text } else {
                    text = Self.text(message)
                    encoded = (message, text)
                }
                if case .dropped = outbox.yield(.text(text)) {
                    // A client that does not read cannot hold the server's memory: end its
                    // connection; it resumes and gets the room's state anew.
                    outboxes.removeValue(forKey: address)?.finish()
                }
            case .end(let address, let reason):
                metrics.ended(reason)
                roomOf.removeValue(forKey: address)
                guard let outbox = outboxes.removeValue(forKey: address) else { continue }
                outbox.yield(.text(Self.text(.disconnected(reason: reason))))
                outbox.yield(.close(code: reason.closeCode, reason: reason.rawValue))
                outbox.finish()
            case .refreshToken(let address, let claims):
                guard let signer, let outbox = outboxes[address] else { continue }
                // Signing is async (jwt-kit); the token follows whatever this turn sends, and
                // goes nowhere if the connection closed meanwhile.
                Task {
                    let token = await signer(claims)
                    outbox.yield(.text(Self.text(.tokenRefreshed(token: token))))
                }
            case .discard:
                store.remove(id)
            }
        }
        publish(id)
    }

    private static func text(_ message: ServerMessage) -> String { String(decoding: SignalCodec.encode(message), as: UTF8.self) }

    /// Names the server's STUN responder in every welcome from now on (the rooms' rules do
    /// not know the server's sockets; the hub adds it on the way out).
    public func useSTUN(port: Int?) { stunPort = port }

    private static func summary(_ room: ServerRoom) -> RoomSummary {
        RoomSummary(room: room.info, host: room.host, members: room.members.count, online: room.members.filter(\.online).count,
                    waiting: room.joinRequests.count, created: room.created)
    }
}
