import ConferSession
import Foundation
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

    /// With renewal off (`confer serve --no-token-refresh`), a token's `exp` bounds the session.
    @Test func anExpiredTokenEndsTheSession() {
        var rules = RoomRules()
        rules.refreshesTokens = false
        var h = RoomHarness(rules: rules)
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

    /// A connected member's token is renewed halfway through its lifetime, as long-lived as
    /// the first and with its grant (identity, name, room, role), so the meeting outlasts
    /// it; a long-lived token is not renewed in that time. The renewal resumes the session
    /// after the first token's `exp`.
    @Test func aConnectedMembersTokenIsRenewedAndTheMeetingOutlastsIt() throws {
        var h = RoomHarness()
        let first = h.claims("host", .host, lifetime: .seconds(20))
        let host = h.join(first)
        let alice = h.join("alice", .observer)
        let start = h.now
        for _ in 0 ..< 6 {
            h.advance(.seconds(9))
            h.send(.ping(sent: nil), from: host)
            h.send(.ping(sent: nil), from: alice)
        }
        #expect(h.ended[host] == nil, "54 s on a 20 s token")
        let renewals = h.refreshed[host] ?? []
        #expect(renewals.count == 5, "at 10, 20, 30, 40 and 50 s: \(renewals.map(\.notBefore))")
        #expect(renewals.first?.notBefore == (start + .seconds(10)).wholeSeconds)
        for claims in renewals {
            #expect(claims.expires - claims.notBefore == 20 && claims.issuedAt == claims.notBefore)
            #expect(claims.identity == "host" && claims.name == "HOST" && claims.room == "room" && claims.role == .host)
        }
        #expect(h.refreshed[alice] == nil, "an hour's token is not renewed in a minute")

        // The connection drops after the first token expired: the renewal resumes it.
        h.lose(host)
        h.clear()
        let last = try #require(renewals.last)
        // What the server's check of a token says (RoomState trusts the server's verify).
        #expect(throws: SessionRefusal.tokenExpired) { try first.check(room: "room", at: h.now) }
        #expect(throws: Never.self) { try last.check(room: "room", at: h.now) }
        let resumed = h.join(last)
        #expect(h.take(resumed).contains { if case .joined = $0 { true } else { false } }, "resumed with the renewed token")
        #expect(h.ended[resumed] == nil)
    }

    /// A member whose connection dropped gets no renewal: its token runs out as before (here
    /// within the reconnect grace) and ends the seat.
    @Test func anOfflineMembersTokenIsNotRenewed() {
        var h = RoomHarness()
        let host = h.join("host", .host, lifetime: .seconds(20))
        let alice = h.join("alice", .observer)
        h.advance(.seconds(5))
        h.lose(host)
        h.advance(.seconds(16))
        #expect(h.refreshed[host] == nil)
        #expect(h.events(alice).contains(.memberLeft(identity: "host", reason: .tokenExpired)))
    }

    /// When a token is renewed, and what its renewal says, at the edges: a second after issue
    /// at the earliest, never for one that never expires or has no lifetime, and a renewal
    /// that saturates rather than overflows.
    @Test func tokenRenewalTimes() {
        let second = TokenClaims(identity: "a", name: "a", room: "r", role: .participant, notBefore: 100, expires: 101, issuedAt: 100)
        #expect(second.refreshTime == SessionTime(milliseconds: 101_000))
        let hour = TokenClaims(identity: "a", name: "a", room: "r", role: .participant, notBefore: 100, expires: 3700)
        #expect(hour.refreshTime == SessionTime(milliseconds: 1_900_000), "halfway, counted from nbf without iat")
        let never = TokenClaims(identity: "a", name: "a", room: "r", role: .participant, notBefore: 0, expires: .max)
        #expect(never.refreshTime == nil)
        let backwards = TokenClaims(identity: "a", name: "a", room: "r", role: .participant, notBefore: 100, expires: 50)
        #expect(backwards.refreshTime == nil)
        let renewed = hour.refreshed(at: SessionTime(milliseconds: 2_000_500))
        #expect(renewed.notBefore == 2000 && renewed.issuedAt == 2000 && renewed.expires == 5600)
        let huge = TokenClaims(identity: "a", name: "a", room: "r", role: .participant, notBefore: .min, expires: 1)
        #expect(huge.refreshed(at: SessionTime(milliseconds: .max)).expires == .max)
    }

    /// A token signed by an application's own backend may say it never expires with the
    /// largest `exp` JWT can carry; its member stays, and no time sum traps on it.
    @Test func aTokenThatNeverExpiresKeepsItsMember() {
        var h = RoomHarness()
        let forever = TokenClaims(identity: "host", name: "Host", room: "room", role: .host, notBefore: 0, expires: .max)
        #expect(throws: Never.self) { try forever.check(room: "room", at: h.now) }
        #expect(forever.expiry == SessionTime(milliseconds: .max))
        let host = SessionAddress(identity: "host", connection: 1)
        h.apply(h.room.join(forever, on: host, at: h.now))
        let member = h.join("p", .participant)
        h.send(.approve(identity: "p"), from: host)
        #expect(h.room.members.map(\.identity).sorted() == ["host", "p"])
        for _ in 0 ..< 4 {
            h.advance(.seconds(9))
            h.send(.ping(sent: nil), from: host)
            h.send(.ping(sent: nil), from: member)
        }
        #expect(h.ended[host] == nil && h.ended[member] == nil)
        #expect(TokenClaims(identity: "a", room: "r", role: .host, notBefore: h.now, lifetime: .seconds(Int64.max)).expires
            == Int64.max / 1000, "a lifetime past the end of time ends there")
    }

    /// Session time holds at its bounds instead of trapping, and rounds seconds down on both
    /// sides of its origin, as JWT's whole seconds are compared.
    @Test func sessionTimeHoldsAtItsBoundsAndRoundsSecondsDown() {
        let end = SessionTime(milliseconds: .max), start = SessionTime(milliseconds: .min)
        #expect(end + .seconds(1) == end && start - .seconds(1) == start)
        #expect(start + .seconds(-Int64.max) == start && end - .seconds(-Int64.max) == end)
        #expect(end - start == .milliseconds(Int64.max) && start - end == .milliseconds(Int64.min))
        #expect(SessionTime(milliseconds: 1_999).wholeSeconds == 1 && SessionTime(milliseconds: -1).wholeSeconds == -1)
        #expect(SessionTime(milliseconds: -1_000).wholeSeconds == -1 && SessionTime(milliseconds: -1_001).wholeSeconds == -2)
        #expect(start.wholeSeconds == Int64.min / 1000 - 1)
        #expect(SessionTime(milliseconds: 5_000) - .milliseconds(1_500) == SessionTime(milliseconds: 3_500))
        #expect(SessionTime.seconds(1e300) == end && SessionTime.seconds(-.infinity) == start)
        #expect(SessionTime.seconds(.nan) == SessionTime(milliseconds: 0) && SessionTime.seconds(1.5) == SessionTime(milliseconds: 1_500))
    }

    /// Rules read from JSON take durations in seconds, from none to a year; others are refused
    /// as data errors rather than trapping on the way to milliseconds.
    @Test func rulesReadFromJSONRefuseDurationsOutOfRange() throws {
        let rules = try JSONDecoder().decode(RoomRules.self, from: Data(#"{"keepaliveTimeout": 12.5}"#.utf8))
        #expect(rules.keepaliveTimeout == .milliseconds(12_500) && rules.reconnectGrace == RoomRules().reconnectGrace)
        for bad in ["1e300", "-1", "31700000"] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(RoomRules.self, from: Data(#"{"reconnectGrace": \#(bad)}"#.utf8)) }
        }
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
