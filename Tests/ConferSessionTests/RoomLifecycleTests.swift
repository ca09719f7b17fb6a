import ConferSession
import Testing

@Suite struct RoomLifecycleTests {
    @Test func anEmptyRoomClosesTenSecondsAfterTheLastMemberLeaves() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.leave, from: members[0])
        h.advance(.seconds(5))
        h.send(.leave, from: host)
        #expect(h.ended[host] == .left)
        h.advance(.milliseconds(9_999))
        #expect(!h.room.isClosed)
        h.advance(.milliseconds(1))
        #expect(h.room.isClosed && h.discarded)
    }

    @Test func aMemberArrivingInTheEmptyWindowKeepsTheRoomOpen() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        h.send(.leave, from: host)
        h.advance(.seconds(9))
        h.join("host", .host)
        h.advance(.seconds(25))
        #expect(!h.room.isClosed)
    }

    @Test func anAdminRoomNobodyJoinsClosesAfterThirtySeconds() {
        var h = RoomHarness(createdByAdministrator: true)
        h.advance(.milliseconds(29_999))
        #expect(!h.room.isClosed)
        h.advance(.milliseconds(1))
        #expect(h.room.isClosed)
    }

    @Test func theFourDurationsAreConfigurable() {
        var rules = RoomRules()
        rules.emptyTimeout = .seconds(2)
        rules.unusedTimeout = .seconds(3)
        rules.keepaliveTimeout = .seconds(4)
        rules.joinRequestTimeout = .seconds(5)
        var unused = RoomHarness(rules: rules, createdByAdministrator: true)
        unused.advance(.milliseconds(2_999))
        #expect(!unused.room.isClosed)
        unused.advance(.milliseconds(1))
        #expect(unused.room.isClosed)

        var h = RoomHarness(rules: rules)
        let host = h.join("host", .host)
        let alice = h.join("alice", .participant)
        h.advance(.milliseconds(3_999))
        #expect(h.ended[host] == nil)
        h.advance(.milliseconds(1))
        #expect(h.ended[host] == .timedOut, "no keepalive for 4 s")
        h.advance(.milliseconds(999))
        #expect(h.ended[alice] == nil)
        h.advance(.milliseconds(1))
        #expect(h.ended[alice] == .timedOut, "the request expires at 5 s")
        h.advance(.milliseconds(1_999))
        #expect(!h.room.isClosed)
        h.advance(.milliseconds(1))
        #expect(h.room.isClosed, "empty for 2 s")
    }

    @Test func keepalivesKeepAMemberIn() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        for _ in 0 ..< 10 {
            h.advance(.seconds(10))
            h.send(.ping(sent: nil), from: host)
            h.send(.ping(sent: nil), from: members[0])
        }
        #expect(h.ended.isEmpty)
        h.advance(.seconds(30))
        #expect(h.ended[host] == .timedOut && h.ended[members[0]] == .timedOut)
    }

    @Test func anExpiredTokenEndsTheSession() {
        var h = RoomHarness()
        let host = h.join("host", .host, lifetime: .seconds(20))
        let alice = h.join("alice", .observer)
        h.clear()
        for _ in 0 ..< 3 {
            h.advance(.seconds(9))
            h.send(.ping(sent: nil), from: host)
            h.send(.ping(sent: nil), from: alice)
        }
        #expect(h.ended[host] == .tokenExpired)
        #expect(h.events(alice).contains(.memberLeft(identity: "host", reason: .tokenExpired)))
    }

    @Test func theNextDeadlineIsTheEarliestRule() {
        var h = RoomHarness()
        let start = h.now
        h.join("host", .host)
        #expect(h.room.nextDeadline == start + .seconds(30))
        h.join("alice", .participant)
        h.advance(.seconds(1))
        h.send(.ping(sent: nil), from: SessionAddress(identity: "host", connection: 1))
        #expect(h.room.nextDeadline == start + .seconds(31))
    }
}
