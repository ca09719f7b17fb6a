import ConferSession
import Testing

@Suite struct RoomChatTests {
    @Test func messagesAreOrderedPerSenderAndDeliveredOnce() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        for index in 1 ... 5 {
            h.send(.send(to: nil, kind: nil, text: "a\(index)"), from: members[0])
            h.send(.send(to: nil, kind: nil, text: "b\(index)"), from: members[1])
        }
        for address in [host] + members {
            let received = h.events(address).compactMap { if case .message(let m) = $0 { m } else { nil } }
            #expect(received.count == 10, "everyone, the senders too, gets each message once")
            #expect(received.map(\.id) == Array(1 ... 10))
            #expect(received.filter { $0.from == "alice" }.map(\.senderSequence) == [1, 2, 3, 4, 5])
            #expect(received.filter { $0.from == "bob" }.map(\.text) == ["b1", "b2", "b3", "b4", "b5"])
        }
    }

    @Test func aMessageToListedMembersReachesOnlyThem() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob", "carol"])
        h.send(.send(to: ["bob"], kind: "reaction", text: "👍"), from: members[0])
        #expect(h.events(members[1]).count == 1)
        #expect(h.events(members[0]).count == 1, "the sender sees its own message")
        #expect(h.events(members[2]).isEmpty && h.events(host).isEmpty)
        h.send(.send(to: ["nobody"], kind: nil, text: "?"), from: members[0])
        #expect(h.refusals(members[0]) == [.unknownMember])
        h.send(.send(to: nil, kind: nil, text: ""), from: members[0])
        #expect(h.refusals(members[0]) == [.invalidMessage])
        h.send(.send(to: nil, kind: nil, text: String(repeating: "x", count: 5000)), from: members[0])
        #expect(h.refusals(members[0]) == [.invalidMessage])
    }

    @Test func aLateJoinerGetsTheLastHundredItMayRead() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        for index in 1 ... 130 { h.send(.send(to: nil, kind: nil, text: "m\(index)"), from: members[0]) }
        h.send(.send(to: ["alice"], kind: nil, text: "private"), from: host)
        let late = h.join("late", .observer)
        guard case .joined(let view) = h.take(late).last else { Issue.record("not joined"); return }
        #expect(view.messages.count == 99, "the last 100 kept, less the one not addressed to it")
        #expect(view.messages.first?.text == "m32" && view.messages.last?.text == "m130")
        #expect(h.room.history.messages.count == 100 && h.room.history.accepted == 131)
    }
}
