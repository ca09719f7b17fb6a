import ConferSession
import FuzzSupport
import FuzzTraffic

/// Drives one room with whatever the input says: each line is `SESSION TIME-STEP JSON`, the
/// session (0–7) choosing who sends (0 is always the host's token, 1–5 participants, 6–7
/// observers), the step moving virtual time, the JSON a client message (a bad one is
/// skipped, as the server refuses it before the room). A line without JSON, or from a session
/// without a connection, joins (again), with the devices the step's low bits turn off. In place
/// of the JSON, `lost` drops the session's connection and `admin …` is the admin API's word
/// (`admin role ID ROLE`, `admin kick ID`, `admin say TEXT`, `admin close`, `admin forward
/// VIDEO [AUDIO]` or `admin forward off`). After every input the room's rules
/// must hold: at most one host, unique identities, every member reachable, nothing waiting
/// and admitted at once, bounded history and requests, one open request a member's device,
/// only while that device is off and only of a participant (an observer or the host cannot
/// be asked), and applications only from observers.
/// A member kicked cannot join again with a token minted in the kick's second or before.
/// And every connected member's copy of the room (the snapshot it was sent, with the events
/// since applied, as `MeetingClient` keeps it) must be what the room shows that member.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var rules = RoomRules()
    rules.memberLimit = 4
    rules.maximumPendingRequests = 3
    rules.chatHistory = 5
    var now = SessionTime(milliseconds: 1_000_000)
    var room = RoomState(info: RoomInfo(id: "r"), rules: rules, at: now, random: SeededGenerator(seed: 1))
    let identities = ["host", "p1", "p2", "p3", "p4", "p5", "o1", "o2"]
    var connection: UInt64 = 0
    var addresses: [SessionAddress?] = Array(repeating: nil, count: identities.count)
    var copies = Copies()
    var kicks: [String: Int64] = [:]
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for line in text.split(separator: "\n").prefix(200) {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let who = Int(parts[0]), identities.indices.contains(who), let step = Int(parts[1]) else { continue }
        now = now + .milliseconds(Int64(min(max(step, 0), 120_000)))
        copies.follow(room.tick(at: now))
        let identity = identities[who]
        if parts.count == 3, parts[2].hasPrefix("admin ") {
            if let action = administratorAction(parts[2].dropFirst(6)) { copies.follow((try? room.administer(action, at: now)) ?? []) }
        } else if parts.count == 2 || addresses[who] == nil {
            // Join (again): a new connection for this identity.
            connection += 1
            let address = SessionAddress(identity: identity, connection: connection)
            addresses[who] = address
            let role: MemberRole = who == 0 ? .host : who >= 6 ? .observer : .participant
            // The step's two low bits turn the microphone (1) and the camera (2) off for the join.
            let devices = DeviceStates(microphone: step & 1 == 0, camera: step & 2 == 0)
            copies.follow(room.join(TokenClaims(identity: identity, room: "r", role: role, notBefore: now, lifetime: .seconds(600)),
                                    devices: devices, on: address, at: now))
            if let kick = kicks[identity], now.wholeSeconds <= kick {
                require(!room.members.contains { $0.identity == identity } && !room.joinRequests.contains { $0.identity == identity },
                        "\(identity), kicked at \(kick), joined again with a token of \(now.wholeSeconds)")
            }
        } else if let address = addresses[who] {
            if parts[2] == "lost" {
                copies.follow(room.connectionLost(address, at: now))
            } else if let message = try? SignalCodec.decodeClient(Array(parts[2].utf8)) {
                copies.follow(room.handle(message, from: address, at: now))
            }
        }
        for identity in copies.kicked { kicks[identity] = now.wholeSeconds }
        copies.kicked = []
        check(room)
        copies.check(against: room, connected: addresses)
    }
    copies.follow(room.tick(at: now + .seconds(3600)))
    check(room)
    copies.check(against: room, connected: addresses)
    return 0
}

/// The administrator's action a line names, if it names one.
private func administratorAction(_ words: Substring) -> RoomState<SeededGenerator>.AdministratorAction? {
    let word = words.split(separator: " ", maxSplits: 2)
    switch (word.first, word.count) {
    case ("role", 3):
        guard let role = MemberRole(rawValue: String(word[2])) else { return nil }
        return .setRole(identity: String(word[1]), role: role)
    case ("kick", 2): return .kick(identity: String(word[1]))
    case ("say", 2...): return .send(to: nil, text: String(words.dropFirst(4)))
    case ("close", 1): return .close
    case ("forward", 2) where word[1] == "off": return .setForward(nil)
    case ("forward", 2...): return .setForward(RoomForward(video: String(word[1]), audio: word.count > 2 ? String(word[2]) : nil))
    default: return nil
    }
}

/// What each connection would hold: the snapshot it was last sent, with the events since.
private struct Copies {
    var views: [SessionAddress: RoomSnapshot] = [:]
    var ended: Set<SessionAddress> = []
    /// Identities kicked by the last input.
    var kicked: [String] = []

    mutating func follow(_ effects: [RoomEffect]) {
        for effect in effects {
            switch effect {
            case .send(let address, .joined(let snapshot)): views[address] = snapshot
            case .send(let address, .event(let event)): views[address]?.apply(event)
            case .end(let address, let reason):
                ended.insert(address)
                if reason == .kicked { kicked.append(address.identity) }
            case .refreshToken(let address, let claims):
                require(claims.identity == address.identity && !ended.contains(address),
                        "a renewed token for \(claims.identity) sent to \(address), ended: \(ended.contains(address))")
            case .send, .discard: break
            }
        }
    }

    /// Each copy of a connection still open, whose member is in the room and online, against
    /// the room's view for it. A client keeps more chat than the room's history holds, so its
    /// messages end with the room's.
    func check(against room: RoomState<SeededGenerator>, connected addresses: [SessionAddress?]) {
        for case let address? in addresses where !ended.contains(address) {
            guard var copy = views[address],
                  room.members.contains(where: { $0.identity == address.identity && $0.online }) else { continue }
            let expected = room.snapshot(for: address.identity)
            require(copy.messages.suffix(expected.messages.count) == expected.messages[...],
                    "\(address.identity)'s chat is not the room's: \(copy.messages.map(\.id)) against \(expected.messages.map(\.id))")
            copy.messages = expected.messages
            require(copy == expected, "\(address.identity)'s copy of the room is not the room's view: \(copy) against \(expected)")
        }
    }
}

private func check(_ room: RoomState<SeededGenerator>) {
    let members = room.members
    require(members.filter { $0.role == .host }.count <= 1, "two hosts")
    require(Set(members.map(\.identity)).count == members.count, "an identity twice")
    require(Set(members.map(\.slot)).count == members.count, "a slot twice")
    let waiting = Set(room.joinRequests.map(\.identity))
    require(waiting.isDisjoint(with: members.map(\.identity)), "waiting and admitted at once")
    require(room.joinRequests.count + room.pendingApplications.count <= room.rules.maximumPendingRequests, "requests unbounded")
    require(members.filter { $0.role.sends }.count <= (room.rules.memberLimit ?? .max), "past the member limit")
    require(room.history.messages.count <= room.rules.chatHistory, "history unbounded")
    let asked = room.openDeviceRequests.map { "\($0.identity) \($0.device)" }
    require(Set(asked).count == asked.count, "a device asked for twice at once")
    for request in room.openDeviceRequests {
        require(members.contains { $0.identity == request.identity && !$0.devices[request.device] }, "a request open for a device that is on")
        require(members.contains { $0.identity == request.identity && $0.role == .participant }, "a request open for \(request.identity), who may not be asked")
    }
    for application in room.pendingApplications {
        require(members.contains { $0.identity == application.identity && $0.role == .observer }, "an application from \(application.identity), who is no observer")
    }
    if room.isClosed { require(members.isEmpty && room.joinRequests.isEmpty, "a closed room holds someone") }
}

@_cdecl("FuzzRoomState_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
