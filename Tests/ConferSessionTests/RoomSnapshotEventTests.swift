import ConferSession
import Testing

/// A client keeps its copy of the room by applying the events it is sent to the snapshot it
/// joined with (`RoomSnapshot.apply`). These tests hold that copy to what the server would
/// show the same member, after every step of a meeting.
struct RoomSnapshotEventTests {
    /// Each connection's copy: the snapshot it was last sent, with the events since applied.
    private struct Copies {
        var views: [SessionAddress: RoomSnapshot] = [:]

        mutating func follow(_ messages: [ServerMessage], at address: SessionAddress) {
            for message in messages {
                switch message {
                case .joined(let snapshot): views[address] = snapshot
                case .event(let event): views[address]?.apply(event)
                default: break
                }
            }
        }
    }

    @Test func everyMembersCopyFollowsTheRoom() throws {
        var rules = RoomRules()
        rules.deviceRequestTimeout = .seconds(5)
        var h = RoomHarness(rules: rules)
        var copies = Copies()
        var addresses: [String: SessionAddress] = [:]
        func check(_ step: String, _ h: inout RoomHarness) {
            for (identity, address) in addresses.sorted(by: { $0.key < $1.key }) where h.ended[address] == nil {
                copies.follow(h.take(address), at: address)
                guard let copy = copies.views[address] else { continue }
                #expect(copy == h.room.snapshot(for: identity), "\(identity)'s copy after \(step)")
            }
        }

        addresses["host"] = h.join("host", .host)
        check("the host joined", &h)
        for identity in ["alice", "bob", "carol"] {
            addresses[identity] = h.join(identity, .participant)
            check("\(identity) asked to join", &h)
        }
        let host = try #require(addresses["host"])
        h.send(.approve(identity: "alice"), from: host)
        h.send(.approve(identity: "bob"), from: host)
        check("two approvals", &h)
        h.send(.decline(identity: "carol"), from: host)
        check("a decline", &h)
        addresses["carol"] = nil
        addresses["olga"] = h.join("olga", .observer)
        check("an observer joined", &h)
        let olga = try #require(addresses["olga"])
        h.send(.applyForParticipant, from: olga)
        check("an application", &h)
        h.send(.leave, from: olga)
        check("the applicant left", &h)
        addresses["olga"] = h.join("olga", .observer)
        check("the observer is back", &h)

        let alice = try #require(addresses["alice"]), bob = try #require(addresses["bob"])
        h.send(.send(to: nil, kind: nil, text: "hello"), from: alice)
        h.send(.send(to: ["bob"], kind: "note", text: "for bob"), from: host)
        check("chat", &h)
        h.send(.turnOff(identity: "bob", device: .camera), from: host)
        check("a camera turned off", &h)
        h.send(.turnOff(identity: "alice", device: .microphone), from: host)
        h.send(.requestDevice(identity: "bob", device: .camera), from: host)
        h.send(.requestDevice(identity: "alice", device: .microphone), from: host)
        #expect(h.room.openDeviceRequests.count == 2)
        check("two device requests", &h)
        h.send(.answerDeviceRequest(id: 1, accept: true), from: bob)
        check("an answered request", &h)
        h.advance(.seconds(6))
        check("an expired request", &h)
        h.send(.turnOff(identity: "alice", device: .camera), from: host)
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        check("a third request", &h)
        h.send(.setDevice(device: .camera, on: true), from: alice)
        #expect(h.room.openDeviceRequests.isEmpty)
        check("a request met by the member's own hand", &h)
        h.send(.setDevice(device: .microphone, on: false), from: alice)
        check("a member's own device", &h)
        h.send(.turnOff(identity: "bob", device: .microphone), from: host)
        h.send(.requestDevice(identity: "bob", device: .microphone), from: host)
        try h.administer(.setRole(identity: "bob", role: .observer))
        #expect(h.room.openDeviceRequests.isEmpty)
        check("an administrator made an asked member an observer", &h)
        h.send(.applyForParticipant, from: olga)
        try h.administer(.setRole(identity: "olga", role: .participant))
        #expect(h.room.pendingApplications.isEmpty)
        check("an administrator let an applicant in", &h)
        try h.administer(.send(to: nil, text: "maintenance at noon"))
        check("the administrator's word", &h)
        try h.administer(.setForward(RoomForward(video: "10.0.0.5:5004", audio: "10.0.0.5:5006")))
        check("the room's forward", &h)
        h.send(.requestDevice(identity: "alice", device: .microphone), from: host)
        h.send(.transferHost(identity: "alice"), from: host)
        #expect(h.room.openDeviceRequests.isEmpty)
        check("a new host, who had been asked", &h)
        h.send(.kick(identity: "bob"), from: alice)
        check("a kick", &h)
        addresses["bob"] = nil
        h.send(.send(to: nil, kind: nil, text: "bye"), from: host)
        check("chat after the kick", &h)
        try h.administer(.setForward(nil))
        check("the forward stopped", &h)
    }

    /// A request the server sends again (a resent message, a replay) stays one prompt.
    @Test func aRequestSentTwiceIsHeldOnce() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.turnOff(identity: "alice", device: .camera), from: host)
        _ = h.take(members[0])
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        guard case .deviceRequested(let request) = h.events(members[0]).first else { Issue.record("no request"); return }
        var copy = h.room.snapshot(for: "alice")
        copy.apply(.deviceRequested(request))
        #expect(copy.deviceRequests == [request])
        copy.apply(.deviceRequestEnded(id: request.id, identity: "alice", device: .camera, outcome: .accepted))
        #expect(copy.deviceRequests.isEmpty)
    }
}
