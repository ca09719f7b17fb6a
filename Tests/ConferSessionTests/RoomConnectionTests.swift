import ConferSession
import Testing

@Suite struct RoomConnectionTests {
    @Test func aDroppedMemberGoesOfflineThenLeavesAfterTheGrace() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.lose(members[0])
        #expect(h.room.members[1].online == false)
        #expect(h.events(host).contains { if case .memberUpdated(let m) = $0 { m.identity == "alice" && !m.online } else { false } })
        h.advance(.milliseconds(19_999))
        h.send(.ping(sent: nil), from: host)
        #expect(h.room.members.count == 2)
        h.advance(.milliseconds(1))
        #expect(h.room.members.map(\.identity) == ["host"])
        #expect(h.events(host).contains(.memberLeft(identity: "alice", reason: .timedOut)))
        #expect(h.ended[members[0]] == nil, "its connection is already gone")
    }

    @Test func aDroppedMemberResumesWithinTheGraceAsTheSameMember() throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        let slot = h.room.members[1].slot
        h.lose(members[0])
        h.advance(.seconds(5))
        h.send(.ping(sent: nil), from: host)
        try h.administer(.send(to: nil, text: "while you were away"))
        let resumed = h.join("alice", .participant)
        guard case .joined(let view) = h.take(resumed).last else { Issue.record("not resumed"); return }
        #expect(view.member("alice")?.online == true && view.member("alice")?.slot == slot)
        #expect(view.messages.map(\.text) == ["while you were away"], "what it missed is in the snapshot")
        #expect(h.events(host).contains { if case .memberUpdated(let m) = $0 { m.identity == "alice" && m.online } else { false } })
        #expect(h.ended[members[0]] == nil, "no duplicate for a resumed member")
        h.advance(.seconds(25))
        h.send(.ping(sent: nil), from: resumed)
        h.send(.ping(sent: nil), from: host)
        #expect(h.room.members.count == 2)
    }

    @Test func aSecondJoinWithTheSameIdentityReplacesTheFirst() {
        var h = RoomHarness()
        let (_, members) = h.meeting(participants: ["alice"])
        let second = h.join("alice", .participant)
        #expect(h.ended[members[0]] == .duplicateIdentity)
        guard case .joined = h.take(second).last else { Issue.record("not joined"); return }
        // The replaced session can no longer act.
        h.send(.send(to: nil, kind: nil, text: "ghost"), from: members[0])
        #expect(h.refusals(members[0]) == [.notAMember])
        #expect(h.room.members.count == 2)
    }

    @Test func aWaitingRequestWhoseConnectionDropsIsWithdrawn() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let alice = h.join("alice", .participant)
        h.clear()
        h.lose(alice)
        #expect(h.room.joinRequests.isEmpty)
        #expect(h.events(host) == [.joinRequestEnded(identity: "alice", outcome: .cancelled)])
    }

    @Test func theHostLeavingLeavesTheRoomWithoutAHost() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.leave, from: host)
        #expect(h.room.host == nil)
        #expect(h.events(members[0]) == [.memberLeft(identity: "host", reason: .left), .hostChanged(identity: nil)])
    }

    @Test func shuttingDownEndsEverySession() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        let waiting = h.join("bob", .participant)
        h.apply(h.room.shutDown())
        for address in [host, waiting] + members { #expect(h.ended[address] == .serverShutdown) }
    }
}

@Suite struct ConnectionStateMachineTests {
    let t0 = SessionTime(milliseconds: 0)

    @Test func connectsThenReconnectsWithinTheGrace() {
        var machine = ConnectionStateMachine(grace: .seconds(10))
        #expect(machine.start() == .connect)
        #expect(machine.state == .connecting)
        machine.opened()
        #expect(machine.state == .connected)
        #expect(machine.lost(at: t0) == .connect, "the first retry is at once")
        #expect(machine.state == .reconnecting(attempt: 1))
        #expect(machine.lost(at: t0 + .milliseconds(10)) == .none)
        #expect(machine.state == .reconnecting(attempt: 2))
        #expect(machine.nextAttempt == t0 + .milliseconds(260))
        #expect(machine.tick(at: t0 + .milliseconds(259)) == .none)
        #expect(machine.tick(at: t0 + .milliseconds(260)) == .connect)
        #expect(machine.lost(at: t0 + .milliseconds(300)) == .none)
        #expect(machine.nextAttempt == t0 + .milliseconds(800), "the backoff doubles")
        #expect(machine.tick(at: t0 + .milliseconds(800)) == .connect)
        machine.opened()
        #expect(machine.state == .reconnected)
    }

    @Test func theDelayBeforeAnAttemptGrowsAndEndsWithTheGrace() {
        var machine = ConnectionStateMachine(grace: .seconds(3), initialBackoff: .milliseconds(500), maximumBackoff: .seconds(1))
        #expect(machine.delayBeforeAttempt(at: t0) == nil, "not reconnecting")
        _ = machine.start()
        machine.opened()
        #expect(machine.lost(at: t0) == .connect, "the first attempt is at once")
        _ = machine.lost(at: t0 + .milliseconds(20))
        #expect(machine.delayBeforeAttempt(at: t0 + .milliseconds(20)) == .milliseconds(500))
        #expect(machine.delayBeforeAttempt(at: t0 + .seconds(1)) == .zero, "overdue is now, not negative")
        _ = machine.tick(at: t0 + .milliseconds(520))
        _ = machine.lost(at: t0 + .milliseconds(540))
        #expect(machine.delayBeforeAttempt(at: t0 + .milliseconds(540)) == .seconds(1), "doubled")
        _ = machine.tick(at: t0 + .seconds(3))
        #expect(machine.delayBeforeAttempt(at: t0 + .seconds(3)) == nil, "given up after the grace")
    }

    @Test func givesUpAfterTheGrace() {
        var machine = ConnectionStateMachine(grace: .seconds(3), initialBackoff: .milliseconds(500), maximumBackoff: .seconds(1))
        _ = machine.start()
        machine.opened()
        var now = t0
        _ = machine.lost(at: now)
        var attempts = 1
        while case .reconnecting = machine.state {
            now = now + .milliseconds(10)
            _ = machine.lost(at: now) // the attempt failed
            if let next = machine.nextAttempt {
                #expect(next - now <= .seconds(1))
                now = next
                if machine.tick(at: now) == .connect { attempts += 1 }
            }
        }
        #expect(machine.state == .disconnected(.timedOut))
        #expect(attempts >= 4 && attempts <= 8)
        #expect(now - t0 >= .seconds(3))
    }

    @Test func aSessionTheServerEndedIsNotRetried() {
        var machine = ConnectionStateMachine()
        _ = machine.start()
        machine.opened()
        machine.ended(.kicked)
        #expect(machine.state == .disconnected(.kicked))
        #expect(machine.lost(at: t0) == .none)
        #expect(machine.tick(at: t0 + .seconds(60)) == .none)
    }

    @Test func aServerNeverReachedEndsWithNoReason() {
        var machine = ConnectionStateMachine()
        #expect(machine.start() == .connect)
        machine.unreachable()
        // No session was had, so none ended: not `timedOut`, which would send a person looking at keepalives.
        #expect(machine.state == .disconnected(nil))
        #expect(machine.tick(at: t0 + .seconds(60)) == .none)
        #expect(machine.start() == .connect, "the app may try again")
    }
}
