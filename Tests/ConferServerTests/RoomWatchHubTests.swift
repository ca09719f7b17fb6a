@testable import ConferServer
import ConferSession
import Foundation
import Synchronization
import Testing

/// `RoomHub.watch`, the stream behind the admin watch WebSocket, on a virtual clock: the room
/// now, then only changes, the newest for a slow reader, an end when the room closes, and no
/// watcher left behind.
@Suite struct RoomWatchHubTests {
    final class Clock: Sendable {
        let now = Mutex(SessionTime(milliseconds: 1_000_000))
        func advance(_ seconds: Double) { now.withLock { $0 = SessionTime(milliseconds: $0.milliseconds + Int64(seconds * 1000)) } }
    }

    func claims(_ identity: String, _ role: MemberRole, at clock: Clock) -> TokenClaims {
        TokenClaims(identity: identity, room: "standup", role: role, notBefore: clock.now.withLock { $0 }, lifetime: .seconds(3600))
    }

    @Test func aWatcherGetsTheRoomThenEachChangeThenTheEnd() async throws {
        let clock = Clock()
        let hub = RoomHub(clock: { clock.now.withLock { $0 } })
        #expect(await hub.watch("standup") == nil, "no such room yet")
        _ = try await hub.createRoom(RoomInfo(id: "standup"), memberLimit: nil)
        let stream = try #require(await hub.watch("standup"))
        var snapshots = stream.makeAsyncIterator()
        #expect(await snapshots.next()?.snapshot.members.isEmpty == true, "the room as it is, at once")
        #expect(await hub.watcherCount == 1)

        let (outgoing, outbox) = AsyncStream<SessionOutbound>.makeStream()
        defer { _ = outgoing }
        let boss = SessionAddress(identity: "boss", connection: 1)
        await hub.join(claims("boss", .host, at: clock), on: boss, outbox: outbox)
        #expect(await snapshots.next()?.snapshot.members.map(\.identity) == ["boss"])

        // A keepalive changes nothing a watcher sees, so nothing is sent; the chat line that
        // follows is the next thing read.
        let sent = await hub.watchUpdates
        await hub.handle(.ping(sent: nil), from: boss)
        #expect(await hub.watchUpdates == sent, "nothing changed, nothing sent")
        await hub.handle(.send(to: nil, kind: nil, text: "morning"), from: boss)
        #expect(await hub.watchUpdates == sent + 1)
        #expect(await snapshots.next()?.snapshot.messages.map(\.text) == ["morning"])

        // Read slowly: of two changes, the newest is what is read.
        await hub.handle(.send(to: nil, kind: nil, text: "one"), from: boss)
        await hub.handle(.send(to: nil, kind: nil, text: "two"), from: boss)
        #expect(await snapshots.next()?.snapshot.messages.map(\.text) == ["morning", "one", "two"])

        try await hub.administer(.close, in: "standup")
        var rest: [RoomSnapshot] = []
        while let update = await snapshots.next() { rest.append(update.snapshot) }
        #expect(rest.count <= 1, "at most the room as it closed, then the end")
        #expect(await hub.watcherCount == 0)
    }

    @Test func aWatcherThatStopsReadingIsForgotten() async throws {
        let clock = Clock()
        let hub = RoomHub(clock: { clock.now.withLock { $0 } })
        _ = try await hub.createRoom(RoomInfo(id: "standup"), memberLimit: nil)
        let first = try #require(await hub.watch("standup"))
        let second = try #require(await hub.watch("standup"))
        #expect(await hub.watcherCount == 2)
        // The WebSocket's task reads the stream; the administrator leaving cancels that task.
        let reader = Task { for await _ in first {} }
        reader.cancel()
        await reader.value
        // The stream's end reaches the hub through a task of its own: give it turns, not time.
        for _ in 0 ..< 1000 where await hub.watcherCount != 1 { await Task.yield() }
        #expect(await hub.watcherCount == 1)
        _ = second
    }

    @Test func everyWatcherOfAChangeSharesOneUpdateAndItsJSON() async throws {
        let clock = Clock()
        let hub = RoomHub(clock: { clock.now.withLock { $0 } })
        _ = try await hub.createRoom(RoomInfo(id: "standup", name: "Stand-up"), memberLimit: nil)
        var first = try #require(await hub.watch("standup")).makeAsyncIterator()
        var second = try #require(await hub.watch("standup")).makeAsyncIterator()
        _ = await first.next()
        _ = await second.next()
        try await hub.administer(.send(to: nil, text: "hello"), in: "standup")
        let a = try #require(await first.next()), b = try #require(await second.next())
        #expect(a === b, "one update for all, so its JSON is made once")
        let decoded = try JSONDecoder().decode(RoomSnapshot.self, from: Data(a.json.utf8))
        #expect(decoded == a.snapshot && decoded.room.name == "Stand-up" && decoded.messages.map(\.text) == ["hello"])
    }

    @Test func shuttingDownEndsEveryWatch() async throws {
        let clock = Clock()
        let hub = RoomHub(clock: { clock.now.withLock { $0 } })
        _ = try await hub.createRoom(RoomInfo(id: "a"), memberLimit: nil)
        _ = try await hub.createRoom(RoomInfo(id: "b"), memberLimit: nil)
        let watches = [try #require(await hub.watch("a")), try #require(await hub.watch("b"))]
        await hub.shutDown()
        for stream in watches {
            var count = 0
            for await _ in stream { count += 1 }
            #expect(count >= 1)
        }
        #expect(await hub.watcherCount == 0)
        #expect(await hub.watch("a") == nil, "no watch starts after shutdown")
    }

    @Test func anUnusedRoomClosingOnTheClockEndsItsWatch() async throws {
        let clock = Clock()
        let hub = RoomHub(rules: RoomRules(), clock: { clock.now.withLock { $0 } })
        _ = try await hub.createRoom(RoomInfo(id: "standup"), memberLimit: nil)
        let stream = try #require(await hub.watch("standup"))
        clock.advance(Double(RoomRules().unusedTimeout.components.seconds) + 1)
        await hub.tick()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1, "the room as it was, then the end when nobody came")
    }
}
