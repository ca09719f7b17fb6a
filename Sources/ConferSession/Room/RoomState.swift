/// One room's rules as a value type: members, the host, join requests, applications,
/// device requests, chat and the room's own lifecycle. Every input — a join, a client
/// message, a lost connection, an administrator's action, the passing of time — returns
/// the ``RoomEffect``s to carry out, in order. No I/O and no clock: the server drives it
/// on the wall clock, tests and `confer meeting` in virtual time.
///
/// Every refusal answers only the session that asked; nothing about the room changes.
public struct RoomState<Random: RandomNumberGenerator & Sendable>: Sendable {
    /// A member's seat: what the room knows of it beyond what others see.
    struct Seat: Sendable {
        var member: RoomMember
        var address: SessionAddress
        var lastSeen: SessionTime
        var offlineSince: SessionTime?
        /// The token it holds: the one it joined or last resumed with, or the server's last
        /// refresh of it.
        var token: TokenClaims
        var tokenExpiry: SessionTime { token.expiry }
        var grant: MediaGrant?
        /// The devices an observer asked to enter with: off while it only watches, they are
        /// its devices once it becomes a participant. Nil for an observer that was a
        /// participant, whose devices stay off when it sends again until it turns them on.
        var devicesWhenSending: DeviceStates? = nil
    }

    /// A join request with the connection waiting on it.
    struct Waiting: Sendable {
        var request: JoinRequest
        var address: SessionAddress
        var token: TokenClaims
        var tokenExpiry: SessionTime { token.expiry }
        /// The devices it asked to enter with.
        var devices: DeviceStates
    }

    /// The room's names.
    public let info: RoomInfo
    /// Its timers and limits.
    public let rules: RoomRules
    /// Whether it has closed; a closed room refuses every join.
    public private(set) var isClosed = false
    /// When it was created.
    public let created: SessionTime
    /// Whether an administrator created it (it then waits ``RoomRules/unusedTimeout`` for a
    /// first member instead of ``RoomRules/emptyTimeout``).
    public let createdByAdministrator: Bool

    var seats: [Seat] = []
    var waiting: [Waiting] = []
    var applications: [JoinRequest] = []
    var deviceRequests: [DeviceRequest] = []
    /// The room's kept messages.
    public private(set) var history: ChatHistory
    /// Where the host forwards the meeting, as the administrator set it.
    public private(set) var forward: RoomForward?
    private var emptySince: SessionTime
    private var occupied = false
    /// The identities kicked from the room, with the Unix second of the kick: their tokens
    /// from that second or before no longer admit them. At most ``rememberedKicks``.
    private var kicks: [String: Int64] = [:]
    private var nextSlot: UInt32 = 1
    private var nextDeviceRequestID: UInt64 = 1
    private var random: Random

    /// A new, empty room. `random` makes the SRTP keys: the system generator on a server,
    /// a seeded one in tests.
    public init(info: RoomInfo, rules: RoomRules = RoomRules(), createdByAdministrator: Bool = false, at now: SessionTime,
                random: Random) {
        self.info = info
        self.rules = rules
        self.createdByAdministrator = createdByAdministrator
        created = now
        emptySince = now
        history = ChatHistory(capacity: rules.chatHistory)
        self.random = random
    }

    // MARK: - What can be read

    /// The members, in order of admission.
    public var members: [RoomMember] { seats.map(\.member) }
    /// The host's identity, if a host is in the room.
    public var host: String? { seats.first { $0.member.role == .host }?.member.identity }
    /// Waiting join requests.
    public var joinRequests: [JoinRequest] { waiting.map(\.request) }
    /// Waiting applications from observers.
    public var pendingApplications: [JoinRequest] { applications }
    /// Open device requests.
    public var openDeviceRequests: [DeviceRequest] { deviceRequests }
    /// Whether nobody is in the room or waiting to be.
    public var isEmpty: Bool { seats.isEmpty && waiting.isEmpty }
    /// The connection each member (or requester) is reached on.
    public func address(of identity: String) -> SessionAddress? {
        seats.first { $0.member.identity == identity }?.address ?? waiting.first { $0.request.identity == identity }?.address
    }

    /// The room as `identity` sees it: the host sees requests, applications and every grant;
    /// a member its own grant, its own device requests and the messages addressed to it.
    public func snapshot(for identity: String) -> RoomSnapshot {
        let isHost = host == identity
        var media: [String: MediaGrant] = [:]
        for seat in seats where isHost || seat.member.identity == identity {
            if let grant = seat.grant { media[seat.member.identity] = grant }
        }
        return RoomSnapshot(room: info, host: host, members: members,
                            joinRequests: isHost ? joinRequests : [],
                            applications: isHost ? applications : [],
                            deviceRequests: deviceRequests.filter { isHost || $0.identity == identity },
                            messages: history.visible(to: identity), media: media, forward: isHost ? forward : nil)
    }

    /// The room as an administrator sees it: everything but the keys.
    public var administratorSnapshot: RoomSnapshot {
        RoomSnapshot(room: info, host: host, members: members, joinRequests: joinRequests, applications: applications,
                     deviceRequests: deviceRequests, messages: history.messages, media: [:], forward: forward)
    }

    /// The earliest time at which ``tick(at:)`` has something to do.
    public var nextDeadline: SessionTime? {
        var deadline: SessionTime?
        func consider(_ time: SessionTime?) {
            guard let time else { return }
            deadline = deadline.map { min($0, time) } ?? time
        }
        for seat in seats {
            consider(seat.tokenExpiry)
            if rules.refreshesTokens, seat.offlineSince == nil { consider(seat.token.refreshTime) }
            if let offline = seat.offlineSince { consider(offline + rules.reconnectGrace) } else { consider(seat.lastSeen + rules.keepaliveTimeout) }
        }
        for entry in waiting { consider(min(entry.request.expires, entry.tokenExpiry)) }
        for application in applications { consider(application.expires) }
        for request in deviceRequests { consider(request.expires) }
        if !isClosed, isEmpty { consider(closeTime) }
        return deadline
    }

    private var closeTime: SessionTime {
        if !occupied, createdByAdministrator { return created + rules.unusedTimeout }
        return emptySince + rules.emptyTimeout
    }

    // MARK: - Joining

    /// How many kicked identities a room remembers; past that, the one kicked earliest is
    /// forgotten (and its old tokens admit it again). Only the host and administrators add
    /// to it, one a kick.
    public static var rememberedKicks: Int { 1024 }

    /// A session whose token the server verified (`claims`, for this room) joins on
    /// `address`. A host or an observer is admitted at once; a participant's join becomes a
    /// request to the host. A second join with an identity already in the room (or waiting)
    /// takes its place, ending the first session with `duplicateIdentity`. A host or a
    /// participant enters with `devices` (both on when nil); a member resuming keeps the
    /// states it has in the room. An observer's are off while it watches; it takes on
    /// `devices` when it becomes a participant. An identity kicked from the room is refused
    /// (``SessionRefusal/kicked``) unless its token was minted after the kick's second.
    public mutating func join(_ claims: TokenClaims, devices: DeviceStates? = nil, on address: SessionAddress,
                              at now: SessionTime) -> [RoomEffect] {
        var effects: [RoomEffect] = []
        func refuse(_ reason: SessionRefusal) -> [RoomEffect] {
            [.send(address, .refused(action: "join", reason: reason)), .end(address, .refused)]
        }
        if isClosed { return refuse(.roomClosed) }
        if claims.room != info.id { return refuse(.wrongRoom) }
        // Without this, a kicked member's client could join again at once with the token it
        // still holds. Whole seconds, as tokens keep time: a token minted in the kick's own
        // second may be older than the kick, so it is refused too.
        if let kick = kicks[claims.identity], claims.issued <= kick { return refuse(.kicked) }
        if let index = seats.firstIndex(where: { $0.member.identity == claims.identity }) {
            // The same member again: a resumed connection, or a duplicate that replaces it.
            let old = seats[index].address
            if old != address, seats[index].offlineSince == nil { effects.append(.end(old, .duplicateIdentity)) }
            let wasOffline = seats[index].offlineSince != nil
            seats[index].address = address
            seats[index].lastSeen = now
            seats[index].offlineSince = nil
            seats[index].member.online = true
            seats[index].token = claims
            let member = seats[index].member
            effects.append(.send(address, welcome(member.identity, member.role, now)))
            effects.append(.send(address, .joined(snapshot(for: member.identity))))
            if wasOffline || old != address { effects += broadcast(.memberUpdated(member), except: member.identity) }
            return effects
        }
        if let index = waiting.firstIndex(where: { $0.request.identity == claims.identity }) {
            let old = waiting[index].address
            if old != address { effects.append(.end(old, .duplicateIdentity)) }
            waiting[index].address = address
            waiting[index].token = claims
            if let devices { waiting[index].devices = devices }
            effects.append(.send(address, welcome(claims.identity, .participant, now)))
            effects.append(.send(address, .waiting(waiting[index].request)))
            return effects
        }
        switch claims.role {
        case .host:
            if host != nil { return refuse(.hostAlreadyPresent) }
            if isFull { return refuse(.roomFull) }
            effects.append(.send(address, welcome(claims.identity, .host, now)))
            effects += admit(identity: claims.identity, name: claims.name, role: .host, address: address, token: claims,
                             devices: devices ?? DeviceStates(), at: now)
        case .observer:
            effects.append(.send(address, welcome(claims.identity, .observer, now)))
            effects += admit(identity: claims.identity, name: claims.name, role: .observer, address: address, token: claims,
                             devices: .off, at: now)
            seats[seats.count - 1].devicesWhenSending = devices ?? DeviceStates()
        case .participant:
            if isFull { return refuse(.roomFull) }
            if waiting.count + applications.count >= rules.maximumPendingRequests { return refuse(.tooManyRequests) }
            let request = JoinRequest(identity: claims.identity, name: claims.name, created: now, expires: now + rules.joinRequestTimeout)
            waiting.append(Waiting(request: request, address: address, token: claims, devices: devices ?? DeviceStates()))
            occupied = true
            effects.append(.send(address, welcome(claims.identity, .participant, now)))
            effects.append(.send(address, .waiting(request)))
            effects += toHost(.joinRequested(request))
        }
        return effects
    }

    /// Pings every third of the keepalive timeout, so two lost pings do not end a member.
    private func welcome(_ identity: String, _ role: MemberRole, _ now: SessionTime) -> ServerMessage {
        .welcome(identity: identity, role: role, room: info, keepaliveSeconds: Double(rules.keepaliveTimeout.sessionMilliseconds) / 3000,
                 serverTime: now)
    }

    /// Whether another sending member would pass the member limit.
    private var isFull: Bool {
        guard let limit = rules.memberLimit else { return false }
        return seats.filter { $0.member.role.sends }.count >= limit
    }

    private mutating func admit(identity: String, name: String, role: MemberRole, address: SessionAddress, token: TokenClaims,
                                devices: DeviceStates, at now: SessionTime) -> [RoomEffect] {
        let slot: UInt32
        var grant: MediaGrant?
        if role == .host {
            slot = 0
        } else {
            slot = nextSlot
            nextSlot += 1
            grant = MediaGrant(slot: slot, using: &random)
        }
        let member = RoomMember(identity: identity, name: name, role: role, online: true, devices: devices, slot: slot,
                                media: nil, connectInfo: nil, joined: now)
        seats.append(Seat(member: member, address: address, lastSeen: now, offlineSince: nil, token: token, grant: grant))
        occupied = true
        var effects: [RoomEffect] = [.send(address, .joined(snapshot(for: identity)))]
        effects += broadcast(.memberJoined(member), except: identity)
        if role == .host {
            effects += broadcast(.hostChanged(identity: identity), except: identity)
        } else if let grant {
            effects += toHost(.mediaGranted(identity: identity, grant: grant))
        }
        return effects
    }

    // MARK: - Messages

    /// A message from the session on `address`.
    public mutating func handle(_ message: ClientMessage, from address: SessionAddress, at now: SessionTime) -> [RoomEffect] {
        func refuse(_ reason: SessionRefusal) -> [RoomEffect] { [.send(address, .refused(action: message.typeName, reason: reason))] }
        if let index = waiting.firstIndex(where: { $0.address == address }) {
            switch message {
            case .ping(let sent): return [.send(address, .pong(sent: sent))]
            case .cancelJoin, .leave: return endRequest(at: index, outcome: .cancelled, reason: .left)
            case .join: return refuse(.outOfOrder)
            default: return refuse(.notAMember)
            }
        }
        guard let index = seats.firstIndex(where: { $0.address == address }) else {
            if case .ping(let sent) = message { return [.send(address, .pong(sent: sent))] }
            return refuse(.notAMember)
        }
        seats[index].lastSeen = now
        let caller = seats[index].member
        let isHost = caller.role == .host
        switch message {
        case .join:
            return refuse(.outOfOrder)
        case .ping(let sent):
            return [.send(address, .pong(sent: sent))]
        case .leave:
            return remove(at: index, reason: .left, at: now)
        case .cancelJoin:
            return refuse(.unknownRequest)
        case .approve(let identity):
            guard isHost else { return refuse(.notHost) }
            guard let request = waiting.firstIndex(where: { $0.request.identity == identity }) else { return refuse(.unknownRequest) }
            if isFull { return endRequest(at: request, outcome: .roomFull, reason: .refused, refusal: .roomFull) }
            let entry = waiting.remove(at: request)
            return toHost(.joinRequestEnded(identity: identity, outcome: .approved))
                + admit(identity: identity, name: entry.request.name, role: .participant, address: entry.address,
                        token: entry.token, devices: entry.devices, at: now)
        case .decline(let identity):
            guard isHost else { return refuse(.notHost) }
            guard let request = waiting.firstIndex(where: { $0.request.identity == identity }) else { return refuse(.unknownRequest) }
            return endRequest(at: request, outcome: .declined, reason: .declined)
        case .kick(let identity):
            guard isHost else { return refuse(.notHost) }
            guard identity != caller.identity else { return refuse(.notToSelf) }
            guard let target = seats.firstIndex(where: { $0.member.identity == identity }) else { return refuse(.unknownMember) }
            return remove(at: target, reason: .kicked, at: now)
        case .closeRoom:
            guard isHost else { return refuse(.notHost) }
            return close()
        case .transferHost(let identity):
            guard isHost else { return refuse(.notHost) }
            guard identity != caller.identity else { return refuse(.notToSelf) }
            guard let target = seats.firstIndex(where: { $0.member.identity == identity }) else { return refuse(.unknownMember) }
            guard seats[target].member.role == .participant else { return refuse(.wrongRole) }
            guard seats[target].offlineSince == nil else { return refuse(.memberOffline) }
            return transferHost(from: index, to: target)
        case .setDevice(let device, let on):
            guard caller.role.sends else { return refuse(.wrongRole) }
            seats[index].member.devices[device] = on
            var effects = broadcast(.memberUpdated(seats[index].member))
            // Turned on by the member's own hand, the host's request for it is met: it ends
            // accepted, as an answer would end it, so an open request is always for a device that is off.
            if on, let request = deviceRequests.firstIndex(where: { $0.identity == caller.identity && $0.device == device }) {
                effects += endDeviceRequest(deviceRequests.remove(at: request), outcome: .accepted)
            }
            return effects
        case .turnOff(let identity, let device):
            guard isHost else { return refuse(.notHost) }
            guard let target = seats.firstIndex(where: { $0.member.identity == identity }) else { return refuse(.unknownMember) }
            guard seats[target].member.role.sends else { return refuse(.wrongRole) }
            seats[target].member.devices[device] = false
            return [.send(seats[target].address, .event(.deviceTurnedOff(identity: identity, device: device)))]
                + broadcast(.memberUpdated(seats[target].member))
        case .requestDevice(let identity, let device):
            guard isHost else { return refuse(.notHost) }
            guard identity != caller.identity else { return refuse(.notToSelf) }
            guard let target = seats.firstIndex(where: { $0.member.identity == identity }) else { return refuse(.unknownMember) }
            guard seats[target].member.role.sends else { return refuse(.wrongRole) }
            guard !seats[target].member.devices[device] else { return refuse(.deviceAlreadyOn) }
            // One prompt per device: a host's second click would otherwise stack prompts on
            // the member's screen, and open requests would grow with the host's message rate.
            guard !deviceRequests.contains(where: { $0.identity == identity && $0.device == device }) else {
                return refuse(.alreadyRequested)
            }
            let request = DeviceRequest(id: nextDeviceRequestID, identity: identity, device: device, created: now,
                                        expires: now + rules.deviceRequestTimeout)
            nextDeviceRequestID += 1
            deviceRequests.append(request)
            // The host sees it too: its snapshot lists the open requests, so its copy must.
            return [.send(seats[target].address, .event(.deviceRequested(request)))] + toHost(.deviceRequested(request))
        case .answerDeviceRequest(let id, let accept):
            guard let request = deviceRequests.firstIndex(where: { $0.id == id && $0.identity == caller.identity }) else {
                return refuse(.unknownRequest)
            }
            let entry = deviceRequests.remove(at: request)
            var effects = endDeviceRequest(entry, outcome: accept ? .accepted : .rejected)
            if accept {
                seats[index].member.devices[entry.device] = true
                effects += broadcast(.memberUpdated(seats[index].member))
            }
            return effects
        case .applyForParticipant:
            guard caller.role == .observer else { return refuse(.wrongRole) }
            if applications.contains(where: { $0.identity == caller.identity }) { return [] }
            if waiting.count + applications.count >= rules.maximumPendingRequests { return refuse(.tooManyRequests) }
            let application = JoinRequest(identity: caller.identity, name: caller.name, created: now, expires: now + rules.joinRequestTimeout)
            applications.append(application)
            return toHost(.applicationReceived(application))
        case .answerApplication(let identity, let approve):
            guard isHost else { return refuse(.notHost) }
            guard let application = applications.firstIndex(where: { $0.identity == identity }) else { return refuse(.unknownRequest) }
            applications.remove(at: application)
            guard let target = seats.firstIndex(where: { $0.member.identity == identity }) else { return refuse(.unknownMember) }
            let outcome: JoinRequestOutcome = !approve ? .declined : isFull ? .roomFull : .approved
            var effects = applicationEnded(at: target, outcome: outcome)
            if outcome == .approved {
                becomeParticipant(at: target)
                effects += broadcast(.memberUpdated(seats[target].member))
            }
            return effects
        case .send(let to, let kind, let text):
            return post(from: caller.identity, to: to, kind: kind, text: text, at: now, refusal: refuse)
        case .announceMedia(let description):
            guard description.isPlausible else { return refuse(.invalidMessage) }
            seats[index].member.media = description
            return broadcast(.memberUpdated(seats[index].member))
        case .report(let info):
            seats[index].member.connectInfo = info
            fillRemoteFigures()
            // Figures change every second: they go to the host (and administrators read
            // them), not to every member.
            guard !isHost else { return [] }
            return toHost(.memberUpdated(seats[index].member))
        }
    }

    /// Each side's figures of what the far end got, from the far end's own report: a
    /// participant's from what the host says it received from it; the host's from what the
    /// participants say they received of the composite (and lost of it).
    private mutating func fillRemoteFigures() {
        guard let hostIndex = seats.firstIndex(where: { $0.member.role == .host }) else { return }
        let fromHost = seats[hostIndex].member.connectInfo?.receivedFrom ?? [:]
        var bytes = 0, lost = 0
        for index in seats.indices where index != hostIndex {
            guard var info = seats[index].member.connectInfo else { continue }
            bytes += info.bytesReceived
            lost += info.packetsLost
            if let reception = fromHost[seats[index].member.identity] {
                info.remoteBytesReceived = reception.bytes
                seats[index].member.connectInfo = info
            }
        }
        if var hostInfo = seats[hostIndex].member.connectInfo {
            hostInfo.remoteBytesReceived = bytes
            hostInfo.remotePacketsLost = lost
            seats[hostIndex].member.connectInfo = hostInfo
        }
    }

    private mutating func post(from sender: String?, to recipients: [String]?, kind: String?, text: String, at now: SessionTime,
                               refusal: (SessionRefusal) -> [RoomEffect]) -> [RoomEffect] {
        guard !text.isEmpty, text.utf8.count <= rules.maximumMessageBytes, (kind?.utf8.count ?? 0) <= 64 else { return refusal(.invalidMessage) }
        if let recipients {
            guard !recipients.isEmpty, recipients.count <= 256 else { return refusal(.invalidMessage) }
            for identity in recipients where !seats.contains(where: { $0.member.identity == identity }) { return refusal(.unknownMember) }
        }
        let message = history.append(from: sender, to: recipients, kind: kind, text: text, at: now)
        // Offline members read it in the snapshot they get when they resume.
        return seats.filter { $0.offlineSince == nil && message.isAddressed(to: $0.member.identity) }.map { .send($0.address, .event(.message(message))) }
    }

    private mutating func transferHost(from old: Int, to new: Int) -> [RoomEffect] {
        let newHost = seats[new].member.identity
        var effects = withdrawDeviceRequests(of: newHost)
        seats[old].member.role = .participant
        seats[old].member.slot = nextSlot
        seats[old].grant = MediaGrant(slot: nextSlot, using: &random)
        nextSlot += 1
        seats[new].member.role = .host
        seats[new].member.slot = 0
        seats[new].grant = nil
        effects += broadcast(.memberUpdated(seats[old].member)) + broadcast(.memberUpdated(seats[new].member))
        effects += broadcast(.hostChanged(identity: newHost))
        if let grant = seats[old].grant {
            effects.append(.send(seats[old].address, .event(.mediaGranted(identity: seats[old].member.identity, grant: grant))))
        }
        // The new host needs every grant and the waiting requests: its whole view again. The
        // old one loses them (the others' keys, the requests it can no longer answer): its
        // copy would keep them through events alone, so it is sent its member's view.
        effects.append(.send(seats[new].address, .joined(snapshot(for: newHost))))
        effects.append(.send(seats[old].address, .joined(snapshot(for: seats[old].member.identity))))
        return effects
    }

    // MARK: - Connections and time

    /// The connection on `address` dropped without a `leave`. A member stays, offline,
    /// through the reconnect grace; a waiting request is withdrawn.
    public mutating func connectionLost(_ address: SessionAddress, at now: SessionTime) -> [RoomEffect] {
        if let index = waiting.firstIndex(where: { $0.address == address }) {
            let entry = waiting.remove(at: index)
            if isEmpty { emptySince = now }
            return toHost(.joinRequestEnded(identity: entry.request.identity, outcome: .cancelled))
        }
        guard let index = seats.firstIndex(where: { $0.address == address }), seats[index].offlineSince == nil else { return [] }
        seats[index].offlineSince = now
        seats[index].member.online = false
        return broadcast(.memberUpdated(seats[index].member), except: seats[index].member.identity)
    }

    /// Moves the room's time to `now`: expires tokens, keepalives, grace windows, requests,
    /// and closes an empty room.
    public mutating func tick(at now: SessionTime) -> [RoomEffect] {
        var effects: [RoomEffect] = []
        if isClosed { return [] }
        // Before the expiries: a connected member's token is renewed before it runs out, so
        // a meeting outlasts its tokens and a resume after the first one's `exp` still works.
        if rules.refreshesTokens {
            for index in seats.indices where seats[index].offlineSince == nil {
                guard let due = seats[index].token.refreshTime, due <= now else { continue }
                seats[index].token = seats[index].token.refreshed(at: now)
                effects.append(.refreshToken(seats[index].address, seats[index].token))
            }
        }
        while let index = seats.firstIndex(where: { $0.tokenExpiry <= now }) {
            effects += remove(at: index, reason: .tokenExpired, at: now)
        }
        while let index = seats.firstIndex(where: { seat in
            if let offline = seat.offlineSince { return offline + rules.reconnectGrace <= now }
            return seat.lastSeen + rules.keepaliveTimeout <= now
        }) {
            effects += remove(at: index, reason: .timedOut, at: now)
        }
        while let index = waiting.firstIndex(where: { $0.request.expires <= now || $0.tokenExpiry <= now }) {
            let expired = waiting[index].request.expires <= now
            effects += endRequest(at: index, outcome: .expired, reason: expired ? .timedOut : .tokenExpired)
            if isEmpty { emptySince = now }
        }
        while let index = applications.firstIndex(where: { $0.expires <= now }) {
            let application = applications.remove(at: index)
            if let seat = seats.first(where: { $0.member.identity == application.identity }) {
                effects.append(.send(seat.address, .event(.joinRequestEnded(identity: application.identity, outcome: .expired))))
            }
            effects += toHost(.joinRequestEnded(identity: application.identity, outcome: .expired))
        }
        while let index = deviceRequests.firstIndex(where: { $0.expires <= now }) {
            effects += endDeviceRequest(deviceRequests.remove(at: index), outcome: .expired)
        }
        if isEmpty, closeTime <= now { effects += close() }
        return effects
    }

    // MARK: - Administrators

    /// What an administrator (through the admin API) can do to a room.
    public enum AdministratorAction: Sendable, Hashable {
        /// Remove a member; its tokens from before the kick no longer admit it.
        case kick(identity: String)
        /// Close the room.
        case close
        /// Post a message from the server, to everyone or to listed members.
        case send(to: [String]?, text: String)
        /// Change a member's role (to host: the current host becomes a participant).
        case setRole(identity: String, role: MemberRole)
        /// Set where the host forwards the meeting for an outside audience, or stop it (nil).
        case setForward(RoomForward?)
    }

    /// Carries out an administrator's action, or says why it cannot.
    public mutating func administer(_ action: AdministratorAction, at now: SessionTime) throws(SessionRefusal) -> [RoomEffect] {
        if isClosed { throw .roomClosed }
        switch action {
        case .kick(let identity):
            guard let index = seats.firstIndex(where: { $0.member.identity == identity }) else { throw .unknownMember }
            return remove(at: index, reason: .kicked, at: now)
        case .close:
            return close()
        case .setForward(let forward):
            if let forward { do { try forward.validate() } catch { throw .invalidParameters } }
            guard forward != self.forward else { return [] }
            self.forward = forward
            return toHost(.forwardChanged(forward))
        case .send(let to, let text):
            var refused: SessionRefusal?
            let effects = post(from: nil, to: to, kind: nil, text: text, at: now) { reason in
                refused = reason
                return []
            }
            if let refused { throw refused }
            return effects
        case .setRole(let identity, let role):
            guard let index = seats.firstIndex(where: { $0.member.identity == identity }) else { throw .unknownMember }
            let current = seats[index].member.role
            if current == role { return [] }
            if role == .host {
                guard current == .participant else { throw .wrongRole }
                guard seats[index].offlineSince == nil else { throw .memberOffline }
                if let old = seats.firstIndex(where: { $0.member.role == .host }) { return transferHost(from: old, to: index) }
                let withdrawn = withdrawDeviceRequests(of: identity)
                seats[index].member.role = .host
                seats[index].member.slot = 0
                seats[index].grant = nil
                return withdrawn + broadcast(.memberUpdated(seats[index].member)) + broadcast(.hostChanged(identity: identity))
                    + [.send(seats[index].address, .joined(snapshot(for: identity)))]
            }
            if current == .host { throw .wrongRole } // hand the host role to someone instead
            if role == .participant, isFull { throw .roomFull }
            if role == .observer {
                seats[index].member.role = role
                seats[index].member.devices = .off
                return broadcast(.memberUpdated(seats[index].member)) + withdrawDeviceRequests(of: identity)
            }
            becomeParticipant(at: index)
            var effects = broadcast(.memberUpdated(seats[index].member))
            if let application = applications.firstIndex(where: { $0.identity == identity }) {
                // The administrator's word answers the observer's application: it ends approved,
                // or the host would be left a question already settled.
                applications.remove(at: application)
                effects += applicationEnded(at: index, outcome: .approved)
            }
            return effects
        }
    }

    /// Makes the observer at `index` a participant, with the devices it asked to enter with.
    private mutating func becomeParticipant(at index: Int) {
        seats[index].member.role = .participant
        if let devices = seats[index].devicesWhenSending { seats[index].member.devices = devices }
        seats[index].devicesWhenSending = nil
    }

    /// Tells the observer at `index` and the host that its application ended with `outcome`.
    private func applicationEnded(at index: Int, outcome: JoinRequestOutcome) -> [RoomEffect] {
        let event = RoomEvent.joinRequestEnded(identity: seats[index].member.identity, outcome: outcome)
        return [.send(seats[index].address, .event(event))] + toHost(event)
    }

    /// Ends the open device requests made of `identity`, who may no longer be asked: it left,
    /// or became an observer (who sends nothing) or the host (whom no host asks), where an
    /// answer would turn on a device its role does not have. Told to it, if still seated, and
    /// to the host.
    private mutating func withdrawDeviceRequests(of identity: String) -> [RoomEffect] {
        let requests = deviceRequests.filter { $0.identity == identity }
        deviceRequests.removeAll { $0.identity == identity }
        return requests.flatMap { endDeviceRequest($0, outcome: .withdrawn) }
    }

    /// Ends every session (the server is shutting down), leaving the room closed.
    public mutating func shutDown() -> [RoomEffect] {
        var effects = seats.map { RoomEffect.end($0.address, .serverShutdown) } + waiting.map { .end($0.address, .serverShutdown) }
        seats.removeAll()
        waiting.removeAll()
        isClosed = true
        effects.append(.discard)
        return effects
    }

    // MARK: - Helpers

    private mutating func remove(at index: Int, reason: DisconnectReason, at now: SessionTime) -> [RoomEffect] {
        let seat = seats.remove(at: index)
        let identity = seat.member.identity
        if reason == .kicked { rememberKick(of: identity, at: now) }
        var effects: [RoomEffect] = []
        if seat.offlineSince == nil || reason == .kicked { effects.append(.end(seat.address, reason)) }
        // Its seat is gone, so only the host hears of the requests withdrawn.
        effects += withdrawDeviceRequests(of: identity)
        applications.removeAll { $0.identity == identity }
        effects += broadcast(.memberLeft(identity: identity, reason: reason))
        if seat.member.role == .host { effects += broadcast(.hostChanged(identity: nil)) }
        if isEmpty { emptySince = now }
        return effects
    }

    private mutating func rememberKick(of identity: String, at now: SessionTime) {
        if kicks[identity] == nil, kicks.count >= Self.rememberedKicks,
           let earliest = kicks.min(by: { ($0.value, $0.key) < ($1.value, $1.key) })?.key {
            kicks[earliest] = nil
        }
        kicks[identity] = now.wholeSeconds
    }

    private mutating func endRequest(at index: Int, outcome: JoinRequestOutcome, reason: DisconnectReason,
                                     refusal: SessionRefusal? = nil) -> [RoomEffect] {
        let entry = waiting.remove(at: index)
        var effects: [RoomEffect] = []
        if let refusal { effects.append(.send(entry.address, .refused(action: "join", reason: refusal))) }
        effects.append(.end(entry.address, reason))
        effects += toHost(.joinRequestEnded(identity: entry.request.identity, outcome: outcome))
        return effects
    }

    private func endDeviceRequest(_ request: DeviceRequest, outcome: DeviceRequestOutcome) -> [RoomEffect] {
        let event = RoomEvent.deviceRequestEnded(id: request.id, identity: request.identity, device: request.device, outcome: outcome)
        var effects: [RoomEffect] = []
        if let seat = seats.first(where: { $0.member.identity == request.identity }) { effects.append(.send(seat.address, .event(event))) }
        return effects + toHost(event)
    }

    private mutating func close() -> [RoomEffect] {
        var effects: [RoomEffect] = []
        for seat in seats where seat.offlineSince == nil { effects += [.send(seat.address, .event(.roomClosed)), .end(seat.address, .roomClosed)] }
        for entry in waiting { effects.append(.end(entry.address, .roomClosed)) }
        seats.removeAll()
        waiting.removeAll()
        applications.removeAll()
        deviceRequests.removeAll()
        isClosed = true
        effects.append(.discard)
        return effects
    }

    private func broadcast(_ event: RoomEvent, except identity: String? = nil) -> [RoomEffect] {
        seats.filter { $0.member.identity != identity && $0.offlineSince == nil }.map { .send($0.address, .event(event)) }
    }

    private func toHost(_ event: RoomEvent) -> [RoomEffect] {
        guard let seat = seats.first(where: { $0.member.role == .host }), seat.offlineSince == nil else { return [] }
        return [.send(seat.address, .event(event))]
    }
}
