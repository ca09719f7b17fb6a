import ConferSession

// Seeds for FuzzRoomState and FuzzCallSwitchboard: scripts of `DEVICE TIME-STEP [JSON|lost]`
// lines whose JSON is what SignalCodec writes. Each script is also played against a room or
// switchboard configured as the target configures it, so the scripts follow real meetings
// (the host approves who is really waiting, callees accept calls really ringing) and the
// server messages sent on the way become FuzzSignalMessage seeds.

/// A room script and the room it has been played against.
struct RoomScript {
    var lines: [String] = []
    var room: RoomState<SeededGenerator>
    var now = SessionTime(milliseconds: 1_000_000)
    var addresses: [SessionAddress?] = Array(repeating: nil, count: 8)
    var connection: UInt64 = 0
    var serverMessages: [ServerMessage] = []
    static let identities = ["host", "p1", "p2", "p3", "p4", "p5", "o1", "o2"]

    init() {
        // The target's rules: a full room, a short queue and history are reached quickly.
        var rules = RoomRules()
        rules.memberLimit = 4
        rules.maximumPendingRequests = 3
        rules.chatHistory = 5
        room = RoomState(info: RoomInfo(id: "r"), rules: rules, at: now, random: SeededGenerator(seed: 1))
    }

    private mutating func take(_ effects: [RoomEffect]) {
        for case .send(_, let message) in effects { serverMessages.append(message) }
    }

    /// Session `who` joins (again) after `step` ms.
    mutating func join(_ who: Int, after step: Int = 0) {
        lines.append("\(who) \(step)")
        advance(step)
        connection += 1
        let address = SessionAddress(identity: Self.identities[who], connection: connection)
        addresses[who] = address
        let role: MemberRole = who == 0 ? .host : who >= 6 ? .observer : .participant
        // As the target reads it: the step's low bits turn the microphone (1) and the camera (2) off.
        take(room.join(TokenClaims(identity: Self.identities[who], room: "r", role: role, notBefore: now, lifetime: .seconds(600)),
                       devices: DeviceStates(microphone: step & 1 == 0, camera: step & 2 == 0), on: address, at: now))
    }

    /// Session `who` sends `message` after `step` ms (joining first if it has no connection).
    mutating func send(_ who: Int, _ message: ClientMessage, after step: Int = 0) {
        guard let address = addresses[who] else { return join(who, after: step) }
        lines.append("\(who) \(step) \(String(decoding: SignalCodec.encode(message), as: UTF8.self))")
        advance(step)
        take(room.handle(message, from: address, at: now))
    }

    /// Session `who`'s connection drops after `step` ms.
    mutating func lose(_ who: Int, after step: Int = 0) {
        guard let address = addresses[who] else { return }
        lines.append("\(who) \(step) lost")
        advance(step)
        take(room.connectionLost(address, at: now))
    }

    /// The admin API acts after `step` ms: `words` as the target reads them (`role ID ROLE`,
    /// `kick ID`, `say TEXT`, `close`, `forward VIDEO [AUDIO]`, `forward off`).
    mutating func administer(_ action: RoomState<SeededGenerator>.AdministratorAction, after step: Int = 0) {
        let words = switch action {
        case .setRole(let identity, let role): "role \(identity) \(role.rawValue)"
        case .kick(let identity): "kick \(identity)"
        case .send(_, let text): "say \(text)"
        case .close: "close"
        case .setForward(let forward?): "forward \(forward.video)" + (forward.audio.map { " \($0)" } ?? "")
        case .setForward(nil): "forward off"
        }
        lines.append("0 \(step) admin \(words)")
        advance(step)
        take((try? room.administer(action, at: now)) ?? [])
    }

    private mutating func advance(_ step: Int) {
        now = now + .milliseconds(Int64(step))
        take(room.tick(at: now))
    }

    var text: [UInt8] { Array(lines.joined(separator: "\n").utf8) + [10] }
}

/// Random but plausible meetings: whoever acts picks among the messages that make sense for
/// the room as it stands, with an occasional one that does not.
func roomScripts() -> (seeds: [(String, [UInt8])], serverMessages: [ServerMessage]) {
    var seeds: [(String, [UInt8])] = []
    var messages: [ServerMessage] = []
    for variant in 0 ..< 10 {
        var dice = Dice(UInt64(400 + variant))
        var script = RoomScript()
        script.join(0)
        let lineCount = 60 + 14 * variant
        while script.lines.count < lineCount {
            let who = dice.below(8)
            let others = RoomScript.identities.filter { $0 != RoomScript.identities[who] }
            let step = dice.chance(0.1) ? dice.pick([5_000, 21_000, 31_000, 61_000]) : dice.below(400)
            let waiting = script.room.joinRequests.map(\.identity)
            let pending = script.room.pendingApplications.map(\.identity)
            let device = dice.pick(MediaDevice.allCases)
            switch dice.below(20) {
            case 0, 1: script.join(who, after: step)
            case 2: script.lose(who, after: step)
            case 3: script.send(who, .ping(sent: Int64(dice.below(100_000))), after: step)
            case 4, 5: script.send(who, .send(to: dice.chance(0.3) ? [dice.pick(others)] : nil, kind: dice.chance(0.2) ? "reaction" : nil,
                                              text: dice.pick(["hello", "can you hear me?", "🎉", String(repeating: "x", count: 300)])), after: step)
            case 6: script.send(0, waiting.isEmpty ? .approve(identity: dice.pick(others)) : .approve(identity: dice.pick(waiting)), after: step)
            case 7: script.send(0, waiting.isEmpty ? .decline(identity: dice.pick(others)) : .decline(identity: dice.pick(waiting)), after: step)
            case 8: script.send(dice.chance(0.8) ? 0 : who, .kick(identity: dice.pick(others)), after: step)
            case 9: script.send(dice.chance(0.8) ? 0 : who, .transferHost(identity: dice.pick(others)), after: step)
            case 10: script.send(who, .setDevice(device: device, on: dice.chance(0.5)), after: step)
            case 11: script.send(dice.chance(0.7) ? 0 : who, .turnOff(identity: dice.pick(others), device: device), after: step)
            case 12: script.send(dice.chance(0.7) ? 0 : who, .requestDevice(identity: dice.pick(others), device: device), after: step)
            case 13: script.send(who, .answerDeviceRequest(id: UInt64(dice.below(4)), accept: dice.chance(0.7)), after: step)
            case 14: script.send(6 + dice.below(2), .applyForParticipant, after: step)
            case 15: script.send(0, .answerApplication(identity: pending.isEmpty ? dice.pick(["o1", "o2"]) : dice.pick(pending),
                                                       approve: dice.chance(0.7)), after: step)
            case 16: script.send(who, .leave, after: step)
            case 17: script.send(who, .cancelJoin, after: step)
            case 18 where dice.chance(0.15): script.send(0, .closeRoom, after: step)
            case 19 where dice.chance(0.5):
                // The admin API: mostly role changes, the moves that must settle open requests
                // and applications; now and then a kick, a word, the room's forward set or
                // stopped, or (rarely) the room closed.
                switch dice.below(11) {
                case 0: script.administer(.kick(identity: dice.pick(others)), after: step)
                case 1: script.administer(.send(to: nil, text: "maintenance at noon"), after: step)
                case 10: script.administer(.setForward(dice.chance(0.7) ? RoomForward(video: "10.0.0.5:5004", audio: "10.0.0.5:5006") : nil),
                                           after: step)
                case 2 where dice.chance(0.2): script.administer(.close, after: step)
                default: script.administer(.setRole(identity: dice.pick(RoomScript.identities), role: dice.pick(MemberRole.allCases)), after: step)
                }
            default: script.send(who, .join(token: "t", room: "r"), after: step)
            }
        }
        seeds.append(("meeting-\(variant)", script.text))
        messages += script.serverMessages
    }
    return (seeds, messages)
}

/// A call script and the switchboard it has been played against.
struct CallScript {
    var lines: [String] = []
    var board: CallSwitchboard<SeededGenerator>
    var now = SessionTime(milliseconds: 1_000_000)
    var addresses: [SessionAddress?] = Array(repeating: nil, count: 8)
    var connection: UInt64 = 0
    var placed: [String] = []
    var serverMessages: [CallServerMessage] = []
    static let devices = [("a", "1"), ("a", "2"), ("b", "1"), ("b", "2"), ("b", "3"), ("c", "1"), ("c", "2"), ("a", "1")]

    init() {
        var rules = CallRules()
        rules.maximumCallsPerUser = 3
        rules.rememberedEndedCalls = 4
        board = CallSwitchboard(rules: rules, random: SeededGenerator(seed: 3))
    }

    private mutating func take(_ effects: [CallEffect]) {
        for case .send(_, let message) in effects {
            serverMessages.append(message)
            if case .dialed(_, let info) = message { placed.append(info.id) }
        }
    }

    mutating func signIn(_ who: Int, after step: Int = 0) {
        lines.append("\(who) \(step)")
        advance(step)
        connection += 1
        let address = SessionAddress(identity: Self.devices[who].0, connection: connection)
        addresses[who] = address
        take(board.signIn(CallDevice(identity: Self.devices[who].0, device: Self.devices[who].1), on: address, at: now))
    }

    /// Device `who` sends `message`; `#N` in it names the N-th call placed, as in the target.
    mutating func send(_ who: Int, _ message: CallClientMessage, after step: Int = 0) {
        guard let address = addresses[who] else { return signIn(who, after: step) }
        var json = String(decoding: SignalCodec.encode(message), as: UTF8.self)
        lines.append("\(who) \(step) \(json)")
        advance(step)
        for (index, id) in placed.enumerated().reversed() { json = json.replacing("#\(index)", with: id) }
        if let resolved = try? SignalCodec.decodeCallClient(Array(json.utf8)) { take(board.handle(resolved, from: address, at: now)) }
    }

    mutating func lose(_ who: Int, after step: Int = 0) {
        guard let address = addresses[who] else { return }
        lines.append("\(who) \(step) lost")
        advance(step)
        take(board.connectionLost(address, at: now))
        addresses[who] = nil
    }

    private mutating func advance(_ step: Int) {
        now = now + .milliseconds(Int64(step))
        take(board.tick(at: now))
    }

    var text: [UInt8] { Array(lines.joined(separator: "\n").utf8) + [10] }
}

func callScripts() -> (seeds: [(String, [UInt8])], serverMessages: [CallServerMessage], clientMessages: [CallClientMessage]) {
    var seeds: [(String, [UInt8])] = []
    var server: [CallServerMessage] = []
    var client: [CallClientMessage] = []
    for variant in 0 ..< 10 {
        var dice = Dice(UInt64(500 + variant))
        var script = CallScript()
        for who in 0 ..< 8 where dice.chance(0.7) { script.signIn(who) }
        let lineCount = 50 + 14 * variant
        var ref: UInt64 = 0
        while script.lines.count < lineCount {
            let who = dice.below(8)
            let call = script.placed.isEmpty ? "#0" : "#\(dice.below(script.placed.count))"
            let step = dice.chance(0.1) ? dice.pick([10_000, 31_000, 65_000]) : dice.below(2_000)
            var message: CallClientMessage?
            switch dice.below(16) {
            case 0: script.signIn(who, after: step)
            case 1: script.lose(who, after: step)
            case 2, 3, 4:
                ref += 1
                // The codec follows from the ref, not the dice, so the rest of each script is as before.
                message = .dial(ref: ref, callee: dice.pick(["a", "b", "c", "d"]), video: dice.chance(0.5),
                                customItems: dice.chance(0.3) ? ["topic": "standup"] : nil,
                                ringingTimeout: dice.chance(0.3) ? Double(dice.below(60)) : nil,
                                connectionTimeout: dice.chance(0.2) ? Double(dice.below(30)) : nil,
                                codec: [nil, "vp8", "vp9", "h264"][Int(ref % 4)])
            case 5, 6: message = .accept(call: call)
            case 7: message = .decline(call: call)
            case 8: message = .end(call: call, lost: dice.chance(0.2))
            case 9, 10: message = .mediaConnected(call: call)
            case 11: message = .acceptFailed(call: call)
            case 12: message = .setItems(call: call, items: ["k\(dice.below(3))": "v\(dice.below(9))"])
            case 13: message = .deleteItems(call: call, keys: ["k\(dice.below(3))"])
            case 14: message = .ping(sent: Int64(dice.below(100_000)))
            default: message = .hello(token: "t", device: "1")
            }
            if let message {
                script.send(who, message, after: step)
                client.append(message)
            }
        }
        seeds.append(("calls-\(variant)", script.text))
        server += script.serverMessages
    }
    return (seeds, server, client)
}
