import ConferSession
import Testing

@Suite struct RoomJoinTests {
    @Test func aParticipantsJoinIsARequestTheHostApproves() throws {
        var h = RoomHarness()
        let host = h.join("host", .host)
        guard case .joined(let hostView) = h.take(host).last else { Issue.record("host not admitted"); return }
        #expect(hostView.host == "host")
        let alice = h.join("alice", .participant)
        let waiting = h.take(alice)
        #expect(waiting.count == 2)
        guard case .waiting(let request) = waiting.last else { Issue.record("no waiting"); return }
        #expect(request.identity == "alice" && request.name == "ALICE")
        #expect(h.events(host) == [.joinRequested(request)])
        #expect(h.room.members.map(\.identity) == ["host"])

        h.send(.approve(identity: "alice"), from: host)
        guard case .joined(let snapshot) = h.take(alice).first else { Issue.record("alice not admitted"); return }
        #expect(snapshot.members.map(\.identity) == ["host", "alice"])
        let grant = try #require(snapshot.media["alice"])
        #expect(grant.slot == 1 && grant.uplinkKey.count == 30 && grant.downlinkKey.count == 30 && grant.uplinkKey != grant.downlinkKey)
        #expect(snapshot.media.count == 1, "a participant sees only its own keys")
        let hostEvents = h.events(host)
        #expect(hostEvents.contains(.joinRequestEnded(identity: "alice", outcome: .approved)))
        #expect(hostEvents.contains(.mediaGranted(identity: "alice", grant: grant)))
        #expect(hostEvents.contains { if case .memberJoined(let m) = $0 { m.identity == "alice" && m.role == .participant } else { false } })
    }

    @Test func theHostDeclinesAndTheRequesterEndsDeclined() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let bob = h.join("bob", .participant)
        h.send(.decline(identity: "bob"), from: host)
        #expect(h.ended[bob] == .declined)
        #expect(h.room.members.map(\.identity) == ["host"])
        #expect(h.room.joinRequests.isEmpty)
        #expect(h.events(host).last == .joinRequestEnded(identity: "bob", outcome: .declined))
        // Declined is not banned: the same identity asks again and the host is asked again.
        let again = h.join("bob", .participant)
        #expect(h.events(host).count == 1)
        #expect(h.ended[again] == nil)
    }

    @Test func aRequesterMayCancelWhileWaiting() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let carol = h.join("carol", .participant)
        h.clear()
        h.send(.cancelJoin, from: carol)
        #expect(h.ended[carol] == .left)
        #expect(h.events(host) == [.joinRequestEnded(identity: "carol", outcome: .cancelled)])
        #expect(h.room.joinRequests.isEmpty)
    }

    @Test func anUnansweredRequestExpiresAfterSixtySeconds() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let dave = h.join("dave", .participant)
        h.clear()
        for _ in 0 ..< 2 {
            h.advance(.seconds(25))
            h.send(.ping(sent: 1), from: host) // the host stays alive; the request does not
        }
        h.advance(.milliseconds(9_999))
        #expect(h.ended[dave] == nil)
        h.advance(.milliseconds(1))
        #expect(h.ended[dave] == .timedOut)
        #expect(h.events(host).contains(.joinRequestEnded(identity: "dave", outcome: .expired)))
    }

    @Test func requestsWaitForAHostWhoArrivesLater() {
        var h = RoomHarness()
        let erin = h.join("erin", .participant)
        #expect(h.room.joinRequests.map(\.identity) == ["erin"])
        let host = h.join("host", .host)
        guard case .joined(let view) = h.take(host).last else { Issue.record("host not admitted"); return }
        #expect(view.joinRequests.map(\.identity) == ["erin"])
        h.send(.approve(identity: "erin"), from: host)
        #expect(h.room.members.map(\.identity) == ["host", "erin"])
        #expect(h.ended[erin] == nil)
    }

    @Test func observersJoinWithoutApprovalAndSendNothing() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let olga = h.join("olga", .observer)
        guard case .joined(let view) = h.take(olga).last else { Issue.record("observer not admitted"); return }
        #expect(view.member("olga")?.role == .observer)
        #expect(view.media["olga"] != nil, "an observer receives, so it has a downlink key")
        #expect(h.events(host).contains { if case .memberJoined(let m) = $0 { m.identity == "olga" } else { false } })
        h.send(.setDevice(device: .camera, on: true), from: olga)
        #expect(h.refusals(olga) == [.wrongRole])
    }

    /// An observer sends nothing, so its devices show off to everyone; it takes on the
    /// devices it joined with when it becomes a participant (approved, or made one by an
    /// administrator). One made an observer from a participant comes back with both off.
    @Test func anObserversDevicesAreOffUntilItSends() throws {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let olga = h.join("olga", .observer, devices: DeviceStates(microphone: true, camera: false))
        guard case .joined(let view) = h.take(olga).last else { Issue.record("olga not admitted"); return }
        #expect(view.member("olga")?.devices == .off)
        h.join("oscar", .observer)
        let joined = h.events(host).compactMap { if case .memberJoined(let member) = $0 { member } else { nil } }
        #expect(joined.map(\.devices) == [.off, .off], "the host sees both observers with nothing on")

        h.send(.applyForParticipant, from: olga)
        h.send(.answerApplication(identity: "olga", approve: true), from: host)
        func devices(_ identity: String) -> DeviceStates? { h.room.members.first { $0.identity == identity }?.devices }
        #expect(devices("olga") == DeviceStates(microphone: true, camera: false), "approved, she sends as she asked to join")
        try h.administer(.setRole(identity: "oscar", role: .participant))
        #expect(devices("oscar") == DeviceStates(), "no devices in his join: both on, as for a participant")

        try h.administer(.setRole(identity: "olga", role: .observer))
        #expect(devices("olga") == .off)
        try h.administer(.setRole(identity: "olga", role: .participant))
        #expect(devices("olga") == .off, "a demoted member's devices stay off until it turns them on")
    }

    /// A member enters with the devices its join asks for: shown so to everyone from its
    /// first appearance, kept through approval, and kept (with what it changed since) when
    /// its connection resumes with another join.
    @Test func aMemberEntersWithTheDevicesItJoinsWith() throws {
        var h = RoomHarness()
        let host = h.join("host", .host, devices: DeviceStates(microphone: true, camera: false))
        #expect(h.room.members.first?.devices == DeviceStates(microphone: true, camera: false))
        let alice = h.join("alice", .participant, devices: DeviceStates(microphone: false, camera: true))
        h.clear()
        h.send(.approve(identity: "alice"), from: host)
        let joined = h.events(host).compactMap { if case .memberJoined(let member) = $0 { member } else { nil } }
        #expect(joined.map(\.devices) == [DeviceStates(microphone: false, camera: true)], "the host sees her as she joined")
        guard case .joined(let view) = h.take(alice).last else { Issue.record("alice not admitted"); return }
        #expect(view.member("alice")?.devices == DeviceStates(microphone: false, camera: true))
        h.send(.setDevice(device: .camera, on: false), from: alice)
        h.lose(alice)
        let again = h.join("alice", .participant, devices: DeviceStates())
        guard case .joined(let resumed) = h.take(again).last else { Issue.record("alice did not resume"); return }
        #expect(resumed.member("alice")?.devices == DeviceStates(microphone: false, camera: false), "a resumed member keeps its devices")
        // Without devices in the join, both are on, as before they could be asked for.
        h.join("bob", .participant)
        h.send(.approve(identity: "bob"), from: host)
        #expect(h.room.members.first { $0.identity == "bob" }?.devices == DeviceStates())
    }

    @Test func oneHostPerRoom() {
        var h = RoomHarness()
        h.join("host", .host)
        let second = h.join("other-host", .host)
        #expect(h.refusals(second) == [.hostAlreadyPresent])
        #expect(h.ended[second] == .refused)
        #expect(h.room.host == "host")
    }

    @Test func theMemberLimitRefusesJoinsAndApprovalsPastIt() {
        var rules = RoomRules()
        rules.memberLimit = 2
        var h = RoomHarness(rules: rules)
        let host = h.join("host", .host)
        h.join("a", .participant)
        let b = h.join("b", .participant) // asks while there is room
        h.send(.approve(identity: "a"), from: host)
        h.clear()
        h.send(.approve(identity: "b"), from: host) // now the room is full
        #expect(h.refusals(b) == [.roomFull])
        #expect(h.ended[b] == .refused)
        #expect(h.events(host) == [.joinRequestEnded(identity: "b", outcome: .roomFull)])
        let c = h.join("c", .participant)
        #expect(h.refusals(c) == [.roomFull])
        // Observers do not count against the limit of sending members.
        let o = h.join("o", .observer)
        #expect(h.ended[o] == nil)
        #expect(h.room.members.count == 3)
    }

    @Test func aFloodOfJoinRequestsIsBounded() {
        var rules = RoomRules()
        rules.maximumPendingRequests = 8
        var h = RoomHarness(rules: rules)
        let host = h.join("host", .host)
        var refused = 0
        for index in 0 ..< 100 {
            let address = h.join("flood-\(index)", .participant)
            if h.refusals(address) == [.tooManyRequests] { refused += 1 }
        }
        #expect(refused == 92)
        #expect(h.room.joinRequests.count == 8)
        #expect(h.events(host).count == 8)
    }

    @Test func aTokenForAnotherRoomIsRefused() {
        var h = RoomHarness()
        let address = SessionAddress(identity: "x", connection: 99)
        h.apply(h.room.join(h.claims("x", .host, room: "elsewhere"), on: address, at: h.now))
        #expect(h.refusals(address) == [.wrongRoom])
        #expect(h.room.members.isEmpty)
    }

    /// A kicked member's client cannot come straight back with the token it holds; a token
    /// minted after the kick asks the host again, as anyone's join does.
    @Test func aKickedMembersTokenNoLongerAdmitsItButANewOneAsksTheHostAgain() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        let held = h.claims("alice", .participant)
        let heldHostToken = h.claims("alice", .host)
        h.send(.kick(identity: "alice"), from: host)
        #expect(h.ended[members[0]] == .kicked)
        h.clear()
        // In the kick's own second even a token minted now may be older than the kick.
        let sameSecond = h.join("alice", .participant)
        #expect(h.refusals(sameSecond) == [.kicked])
        #expect(h.ended[sameSecond] == .refused)
        // Two seconds on, the token it held is still refused, and so is any other from before
        // the kick, a host token among them; nobody else is concerned.
        h.advance(.seconds(2))
        let withHeld = SessionAddress(identity: "alice", connection: 900)
        h.apply(h.room.join(held, on: withHeld, at: h.now))
        #expect(h.refusals(withHeld) == [.kicked])
        let asHost = SessionAddress(identity: "alice", connection: 901)
        h.apply(h.room.join(heldHostToken, on: asHost, at: h.now))
        #expect(h.refusals(asHost) == [.kicked])
        #expect(h.events(host).isEmpty, "the host is asked nothing")
        #expect(h.room.members.map(\.identity) == ["host", "bob"] && h.room.joinRequests.isEmpty)
        let carol = h.join("carol", .participant)
        #expect(h.room.joinRequests.map(\.identity) == ["carol"] && h.ended[carol] == nil)
        // A token minted since: a join request like anyone's.
        let again = h.join("alice", .participant)
        guard case .waiting = h.take(again).last else { Issue.record("the new token's join was not a request"); return }
        #expect(h.events(host).contains { if case .joinRequested(let r) = $0 { r.identity == "alice" } else { false } })
        // Admitted and kicked again, its newer token is refused in turn.
        h.send(.approve(identity: "alice"), from: host)
        let newer = h.claims("alice", .participant)
        h.send(.kick(identity: "alice"), from: host)
        #expect(h.ended[again] == .kicked)
        h.advance(.seconds(1))
        let withNewer = SessionAddress(identity: "alice", connection: 902)
        h.apply(h.room.join(newer, on: withNewer, at: h.now))
        #expect(h.refusals(withNewer) == [.kicked])
    }

    /// An administrator's kick is remembered as the host's is; a token that does not say when
    /// it was minted dates from its `nbf`.
    @Test func anAdministratorsKickIsRememberedAndATokenWithoutIssueTimeDatesFromItsStart() throws {
        var h = RoomHarness()
        let (_, members) = h.meeting(participants: ["alice"])
        let watcher = h.join("olga", .observer)
        h.clear()
        try h.administer(.kick(identity: "olga"))
        #expect(h.ended[watcher] == .kicked)
        h.advance(.seconds(3))
        let second = h.now.wholeSeconds
        func token(notBefore: Int64) -> TokenClaims {
            TokenClaims(identity: "olga", name: "Olga", room: "room", role: .observer, notBefore: notBefore, expires: second + 600)
        }
        let before = SessionAddress(identity: "olga", connection: 800)
        h.apply(h.room.join(token(notBefore: second - 3), on: before, at: h.now))
        #expect(h.refusals(before) == [.kicked])
        let since = SessionAddress(identity: "olga", connection: 801)
        h.apply(h.room.join(token(notBefore: second - 1), on: since, at: h.now))
        #expect(h.refusals(since).isEmpty && h.ended[since] == nil)
        #expect(h.room.members.map(\.identity).contains("olga"))
        #expect(h.ended[members[0]] == nil)
    }

    /// A room remembers a bounded number of kicks: past ``RoomState/rememberedKicks`` it
    /// forgets the earliest, so no run of kicks grows it without end.
    @Test func aRoomRemembersABoundedNumberOfKicks() throws {
        var h = RoomHarness()
        _ = h.join("host", .host)
        let limit = RoomState<SeededGenerator>.rememberedKicks
        var held: [TokenClaims] = []
        for index in 0 ... limit {
            let identity = "watcher-\(index)"
            held.append(h.claims(identity, .observer))
            _ = h.join(identity, .observer)
            try h.administer(.kick(identity: identity))
            if index == 0 { h.advance(.seconds(1)) }
        }
        h.clear()
        h.advance(.seconds(2))
        let first = SessionAddress(identity: "watcher-0", connection: 70_000)
        h.apply(h.room.join(held[0], on: first, at: h.now))
        #expect(h.refusals(first).isEmpty, "the earliest kick is forgotten")
        let second = SessionAddress(identity: "watcher-1", connection: 70_001)
        h.apply(h.room.join(held[1], on: second, at: h.now))
        #expect(h.refusals(second) == [.kicked])
        let last = SessionAddress(identity: "watcher-\(limit)", connection: 70_002)
        h.apply(h.room.join(held[limit], on: last, at: h.now))
        #expect(h.refusals(last) == [.kicked])
    }
}
