import ConferSession
import FuzzSupport

/// Drives one room with whatever the input says: each line is `SESSION TIME-STEP JSON`, the
/// session (0–7) choosing who sends (0 is always the host's token, 1–5 participants, 6–7
/// observers), the step moving virtual time, the JSON a client message (a bad one is
/// skipped, as the server refuses it before the room). After every input the room's rules
/// must hold: at most one host, unique identities, every member reachable, nothing waiting
/// and admitted at once, bounded history and requests.
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
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for line in text.split(separator: "\n").prefix(200) {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let who = Int(parts[0]), identities.indices.contains(who), let step = Int(parts[1]) else { continue }
        now = now + .milliseconds(Int64(min(max(step, 0), 120_000)))
        _ = room.tick(at: now)
        let identity = identities[who]
        if parts.count == 2 || addresses[who] == nil {
            // Join (again): a new connection for this identity.
            connection += 1
            let address = SessionAddress(identity: identity, connection: connection)
            addresses[who] = address
            let role: MemberRole = who == 0 ? .host : who >= 6 ? .observer : .participant
            _ = room.join(TokenClaims(identity: identity, room: "r", role: role, notBefore: now, lifetime: .seconds(600)), on: address, at: now)
        } else if let address = addresses[who] {
            if parts[2] == "lost" {
                _ = room.connectionLost(address, at: now)
            } else if let message = try? SignalCodec.decodeClient(Array(parts[2].utf8)) {
                _ = room.handle(message, from: address, at: now)
            }
        }
        check(room)
    }
    _ = room.tick(at: now + .seconds(3600))
    check(room)
    return 0
}

private func check(_ room: RoomState<SeededGenerator>) {
    let members = room.members
    precondition(members.filter { $0.role == .host }.count <= 1, "two hosts")
    precondition(Set(members.map(\.identity)).count == members.count, "an identity twice")
    precondition(Set(members.map(\.slot)).count == members.count, "a slot twice")
    let waiting = Set(room.joinRequests.map(\.identity))
    precondition(waiting.isDisjoint(with: members.map(\.identity)), "waiting and admitted at once")
    precondition(room.joinRequests.count + room.pendingApplications.count <= room.rules.maximumPendingRequests, "requests unbounded")
    precondition(members.filter { $0.role.sends }.count <= (room.rules.memberLimit ?? .max), "past the member limit")
    precondition(room.history.messages.count <= room.rules.chatHistory, "history unbounded")
    if room.isClosed { precondition(members.isEmpty && room.joinRequests.isEmpty, "a closed room holds someone") }
}

@_cdecl("FuzzRoomState_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
