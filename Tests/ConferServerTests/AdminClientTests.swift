import ConferClient
import ConferSession
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The typed admin client against a real server process: every call reaches the room, and
/// each failure arrives as the case a caller switches on.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct AdminClientTests {
    @Test func everyCallReachesTheRoomAndEachRefusalIsTyped() async throws {
        let server = try await TestServer()
        let admin = try AdminClient(server: server.url, adminToken: server.adminToken)
        #expect(try await admin.rooms().isEmpty)
        // A name a URL must escape reaches the room by that name.
        let id = "q3 review/β?"
        let opened = try await admin.createRoom(id, name: "Q3", description: "numbers", memberLimit: 2)
        #expect(opened.room == RoomInfo(id: id, name: "Q3", description: "numbers") && opened.members == 0 && opened.host == nil)
        await #expect(throws: AdminError.roomExists) { try await admin.createRoom(id) }
        #expect(try await admin.rooms().map(\.room.id) == [id])

        let host = try server.member("host", token: try await server.token("boss", role: "host", room: id), ["--no-media", "--approve", "all", "--events"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "\(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice", room: id), ["--no-media", "--events"])
        #expect(await alice.wait(upTo: 20) { $0.eventNames.contains("joined") }, "\(alice.stderr)")
        let room = try await admin.room(id)
        #expect(room.members.map(\.identity) == ["boss", "alice"] && room.host == "boss")
        #expect(try await admin.rooms().first?.members == 2)

        try await admin.send("just for alice", to: ["alice"], in: id)
        #expect(await alice.wait(upTo: 10) { $0.events.contains {
            $0["event"] as? String == "message" && ($0["data"] as? [String: Any])?["text"] as? String == "just for alice" } })
        try await admin.setRole(of: "alice", to: .observer, in: id)
        #expect(try await admin.room(id).members.first { $0.identity == "alice" }?.role == .observer)
        // An observer cannot be made host in one step: the room's own refusal, with its words.
        do {
            try await admin.setRole(of: "alice", to: .host, in: id)
            Issue.record("an observer became host")
        } catch {
            guard case .refused(let refusal, let message) = error else { Issue.record("\(error)"); return }
            #expect(refusal == .wrongRole && message.contains("wrongRole"), "\(message)")
        }
        await #expect(throws: AdminError.unknownMember) { try await admin.kick("zed", from: id) }
        try await admin.kick("alice", from: id)
        #expect(await alice.exitStatus(timeout: 5) == 4)
        await #expect(throws: AdminError.unknownRoom) { try await admin.room("nowhere") }
        await #expect(throws: AdminError.unknownRoom) { try await admin.closeRoom("nowhere") }

        try await admin.closeRoom(id)
        #expect(await host.exitStatus(timeout: 5) == 4)
        #expect(try await admin.rooms().isEmpty)
        await #expect(throws: AdminError.unauthorized) { try await AdminClient(server: server.url, adminToken: "guess").rooms() }
        // A body the server will not take comes back with its status and words.
        do {
            _ = try await admin.createRoom("", memberLimit: 0)
            Issue.record("an empty room id was taken")
        } catch {
            guard case .rejected(let status, let message) = error else { Issue.record("\(error)"); return }
            #expect(status == 400 && message.contains("memberLimit"), "\(message)")
        }
        await server.stop()
        do {
            _ = try await admin.rooms()
            Issue.record("a stopped server answered")
        } catch {
            guard case .unreachable(let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("Connection refused"), "\(detail)")
        }
    }

    @Test func aServerWithoutAnAdminAPISaysSo() async throws {
        let serve = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", String(repeating: "s", count: 32), "--memory-db"])
        let url = try #require(await serve.firstLine(), "\(serve.stderr)")
        await #expect(throws: AdminError.adminDisabled) { try await AdminClient(server: url, adminToken: "any").rooms() }
        serve.signal(SIGTERM)
        _ = await serve.exitStatus(timeout: 10)
    }

    /// What is not a Confer server: one that never answers, and one that answers something else.
    @Test func aSilentOrAForeignServerIsNamedForWhatItIs() async throws {
        let silent = try Listener()
        var client = try AdminClient(server: "http://127.0.0.1:\(silent.port)", adminToken: "t")
        client.timeout = .milliseconds(300)
        let started = ContinuousClock.now
        await #expect(throws: AdminError.timedOut) { try await client.rooms() }
        #expect(ContinuousClock.now - started < .seconds(5), "the timeout holds")

        let foreign = try Listener()
        foreign.answerOnce("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
        do {
            _ = try await AdminClient(server: "http://127.0.0.1:\(foreign.port)", adminToken: "t").rooms()
            Issue.record("hello was a room list")
        } catch {
            guard case .unexpectedResponse = error else { Issue.record("\(error)"); return }
        }
        let teapot = try Listener()
        teapot.answerOnce("HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\n\r\n")
        await #expect(throws: AdminError.rejected(status: 418, message: "no reason given")) {
            try await AdminClient(server: "http://127.0.0.1:\(teapot.port)", adminToken: "t").room("r")
        }
    }

    /// One connection serves request after request; one the server has closed meanwhile is
    /// replaced without the caller seeing it.
    @Test func theConnectionIsKeptAndReplacedWhenTheServerClosedIt() async throws {
        let empty = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]"
        let kept = try Listener()
        // It accepts one connection only: a second request answered proves the first connection served it.
        kept.serve([[empty, empty, empty]])
        var client = try AdminClient(server: "http://127.0.0.1:\(kept.port)", adminToken: "t")
        client.timeout = .seconds(2)
        for _ in 0 ..< 3 { #expect(try await client.rooms().isEmpty) }

        let closing = try Listener()
        closing.serve([[empty], [empty]])
        var again = try AdminClient(server: "http://127.0.0.1:\(closing.port)", adminToken: "t")
        again.timeout = .seconds(2)
        #expect(try await again.rooms().isEmpty)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await again.rooms().isEmpty, "the closed connection was replaced")
        withExtendedLifetime((kept, closing)) {}
    }

    /// Interim answers (100 Continue, 103 Early Hints) are read past to the real one, as a
    /// client must (RFC 9110 §15.2): NIO's decoder drops them by its default strategy, which
    /// this keeps the client on.
    @Test func anInterimAnswerIsReadPast() async throws {
        let hinting = try Listener()
        hinting.answerOnce("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]")
        var client = try AdminClient(server: "http://127.0.0.1:\(hinting.port)", adminToken: "t")
        client.timeout = .seconds(5)
        #expect(try await client.rooms().isEmpty)
        withExtendedLifetime(hinting) {}
    }

    @Test func aServerURLItCannotUseIsRefusedAtOnce() {
        #expect(throws: AdminError.self) { try AdminClient(server: "ftp://127.0.0.1:1", adminToken: "t") }
        // TLS to an address proves nothing without the server's certificate to check against.
        do {
            _ = try AdminClient(server: "https://127.0.0.1:7880", adminToken: "t")
            Issue.record("an https address without --trust")
        } catch {
            guard case .invalidConfiguration(let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("--trust"))
        }
        #expect((try? AdminClient(server: "https://confer.example:8443/base/", adminToken: "t")) != nil)
        #expect((try? AdminClient(server: "http://[::1]:7880", adminToken: "t")) != nil)
        #expect(throws: AdminError.self) { try AdminClient(server: "http://host:99999", adminToken: "t") }
    }
}

/// A loopback TCP listener on a free port. Unless told to answer, it never accepts: the
/// kernel completes the handshake and nothing is ever said.
final class Listener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        try #require(bound == 0 && listen(descriptor, 4) == 0, "no loopback listener")
    }

    /// Accepts one connection, reads what it sends, writes `answer` and closes it.
    func answerOnce(_ answer: String) { serve([[answer]]) }

    /// Accepts a connection for each element of `connections` in turn; on each, reads a
    /// request and writes an answer, for each of its answers, then closes it.
    func serve(_ connections: [[String]]) {
        let descriptor = descriptor
        Thread.detachNewThread {
            for answers in connections {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                var pending: [UInt8] = []
                for answer in answers {
                    // A request (these have no body) ends at its blank line, however it was split.
                    var ended = false
                    while !ended {
                        if let end = pending.indices.dropLast(3).first(where: { Array(pending[$0 ..< $0 + 4]) == Array("\r\n\r\n".utf8) }) {
                            pending.removeFirst(end + 4)
                            ended = true
                            break
                        }
                        var chunk = [UInt8](repeating: 0, count: 4096)
                        let count = read(connection, &chunk, chunk.count)
                        guard count > 0 else { break }
                        pending += chunk[..<count]
                    }
                    guard ended else { break }
                    let bytes = Array(answer.utf8)
                    _ = write(connection, bytes, bytes.count)
                }
                close(connection)
            }
        }
    }

    deinit { close(descriptor) }
}
