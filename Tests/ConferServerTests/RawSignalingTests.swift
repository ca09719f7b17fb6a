import ConferSession
import Foundation
import Logging
import Synchronization
import Testing
import WSClient

/// A hand-driven WebSocket against a real server process: what a hostile or broken client
/// can send, and the typed answer each gets while everyone else goes on.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RawSignalingTests {
    /// Connects, sends `messages` (raw text) one by one with a pause, and returns what came back.
    func exchange(_ server: TestServer, _ messages: [String], pause: Duration = .milliseconds(30)) async throws -> [ServerMessage] {
        let url = server.url.replacingOccurrences(of: "http://", with: "ws://") + "/v1/signal"
        let received = Buffer()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        try await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, outbound, _ in
            let reader = Task {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { received.data.withLock { $0.append(Data((text + "\n").utf8)) } }
                }
            }
            for message in messages {
                try await outbound.write(.text(message))
                try await Task.sleep(for: pause)
            }
            try await Task.sleep(for: .milliseconds(300))
            try await outbound.close(.normalClosure, reason: nil)
            _ = try? await reader.value
        }
        let text = received.data.withLock { String(decoding: $0, as: UTF8.self) }
        return text.split(separator: "\n").compactMap { try? SignalCodec.decodeServer(Array($0.utf8)) }
    }

    func join(_ token: String, room: String = "room") -> String { String(decoding: SignalCodec.encode(.join(token: token, room: room)), as: UTF8.self) }
    func text(_ message: ClientMessage) -> String { String(decoding: SignalCodec.encode(message), as: UTF8.self) }

    func refusals(_ messages: [ServerMessage]) -> [SessionRefusal] {
        messages.compactMap { if case .refused(_, let reason) = $0 { reason } else { nil } }
    }

    @Test func aTokenForAnotherRoomIsRefusedBeforeAnythingElse() async throws {
        let server = try await TestServer()
        let token = try await server.token("mallory", room: "other")
        let answers = try await exchange(server, [join(token, room: "room")])
        #expect(refusals(answers) == [.wrongRoom])
        #expect(answers.last == .disconnected(reason: .refused))
        #expect(try await server.rooms(["list", "--json"]).output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "no room was made")
        await server.stop()
    }

    @Test func anythingButAJoinFirstIsRefused() async throws {
        let server = try await TestServer()
        #expect(refusals(try await exchange(server, [text(.kick(identity: "x"))])) == [.outOfOrder])
        #expect(refusals(try await exchange(server, ["{not json"])) == [.malformedMessage])
        #expect(refusals(try await exchange(server, [#"{"v":9,"m":{"leave":{}}}"#])) == [.unsupportedVersion])
        await server.stop()
    }

    @Test func badMessagesAfterJoiningAreAnsweredAndTheSessionGoesOn() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--approve", "all", "--events", "--no-media"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let token = try await server.token("mallory")
        let huge = #"{"v":1,"m":{"send":{"text":""# + String(repeating: "x", count: 70_000) + #""}}}"#
        let answers = try await exchange(server, [
            join(token), text(.kick(identity: "boss")), text(.closeRoom), #"{"v":1,"m":{"teleport":{}}}"#, huge,
            #"{"v":1,"m":{"kick":{"who":1}}}"#, text(.join(token: token, room: "room")), text(.ping(sent: 42)),
        ], pause: .milliseconds(150))
        #expect(answers.contains { if case .joined = $0 { true } else { false } })
        #expect(refusals(answers) == [.notHost, .notHost, .unknownMessageType, .messageTooLarge, .malformedMessage, .outOfOrder])
        #expect(answers.contains(.pong(sent: 42)), "still served after all that")
        #expect(host.isRunning)
        let metrics = try await fetch(server.url + "/metrics")
        #expect(metrics.contains(#"confer_refusals_total{reason="notHost"} 2"#))
        #expect(metrics.contains("confer_bad_messages_total 3"))
        host.signal(SIGINT)
        await server.stop()
    }

    @Test func aFloodIsRateLimitedNotFatal() async throws {
        let server = try await TestServer()
        let token = try await server.token("boss", role: "host")
        let messages = [join(token)] + (0 ..< 300).map { _ in text(.ping(sent: 1)) }
        let answers = try await exchange(server, messages, pause: .zero)
        let pongs = answers.filter { $0 == .pong(sent: 1) }.count
        let limited = refusals(answers).filter { $0 == .rateLimited }.count
        #expect(pongs + limited == 300)
        #expect(limited > 100 && pongs >= 99)
        await server.stop()
    }

    @Test func aWatcherThatSendsGarbageStillSeesTheRoomChange() async throws {
        let server = try await TestServer()
        #expect(try await server.rooms(["create", "planning"]).status == 0)
        let url = server.url.replacingOccurrences(of: "http://", with: "ws://") + "/v1/rooms/planning/watch"
        let received = Buffer()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        configuration.additionalHeaders[.authorization] = "Bearer \(server.adminToken)"
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
            let reader = Task {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { received.data.withLock { $0.append(Data((text + "\n").utf8)) } }
                }
            }
            // What a watcher sends is read and dropped: junk, a signaling message, bytes, a large
            // frame. (The first, whatever it is, starts the watch.)
            for junk in ["{", "not json at all", text(.leave), String(repeating: "x", count: 100_000)] { try await outbound.write(.text(junk)) }
            try await outbound.write(.binary(.init(bytes: [0, 1, 2, 255])))
            #expect(try await server.rooms(["say", "planning", "still here"]).status == 0)
            try await Task.sleep(for: .milliseconds(500))
            try await outbound.close(.normalClosure, reason: nil)
            _ = try? await reader.value
        }
        let updates = received.data.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
            .compactMap { try? JSONDecoder().decode(RoomSnapshot.self, from: Data($0.utf8)) }
        #expect(updates.first?.messages.isEmpty == true, "the room as it was")
        #expect(updates.last?.messages.map(\.text) == ["still here"], "and its change, junk or not: \(updates.count) updates")
        #expect(try await server.rooms(["show", "planning"]).status == 0, "the server goes on")
        await server.stop()
    }

    /// The server says nothing on a watch until the administrator speaks (a frame sent with
    /// the upgrade's answer is one some clients lose), and closes one that never does.
    @Test func aWatchWaitsForTheAdministratorToSpeakFirst() async throws {
        let server = try await TestServer()
        #expect(try await server.rooms(["create", "planning"]).status == 0)
        let url = server.url.replacingOccurrences(of: "http://", with: "ws://") + "/v1/rooms/planning/watch"
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        configuration.additionalHeaders[.authorization] = "Bearer \(server.adminToken)"
        let (settings, log) = (configuration, logger)
        /// Connects; speaks after `speakAfter` (never if nil); returns what came and when, and the close code.
        @Sendable func watch(speakAfter: Duration?) async throws -> (texts: [(String, Duration)], code: UInt16?) {
            let received = Arrivals()
            let start = ContinuousClock.now
            let close = try await WebSocketClient.connect(url: url, configuration: settings, logger: log) { inbound, outbound, _ in
                let reader = Task {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { received.texts.withLock { $0.append((text, ContinuousClock.now - start)) } }
                    }
                }
                if let speakAfter {
                    try await Task.sleep(for: speakAfter)
                    try await outbound.write(.text(#"{"watch":"planning"}"#))
                    try await Task.sleep(for: .milliseconds(500))
                    try await outbound.close(.normalClosure, reason: nil)
                }
                _ = try? await reader.value
            }
            var code: UInt16?
            if let close, case .unknown(let value) = close.closeCode { code = value }
            return (received.texts.withLock { $0 }, code)
        }
        async let speaking = watch(speakAfter: .seconds(1))
        async let silent = watch(speakAfter: nil)
        let (spoke, quiet) = try await (speaking, silent)
        #expect(spoke.texts.count == 1 && spoke.texts[0].1 >= .seconds(1), "nothing before it spoke: \(spoke.texts.map(\.1))")
        #expect((try? JSONDecoder().decode(RoomSnapshot.self, from: Data(spoke.texts.first?.0.utf8 ?? "".utf8)))?.room.id == "planning")
        #expect(quiet.texts.isEmpty && quiet.code == DisconnectReason.timedOut.closeCode, "closed after its silence: \(String(describing: quiet.code))")
        await server.stop()
    }
}

/// Texts a test's WebSocket received, each with when it came.
final class Arrivals: Sendable {
    let texts = Mutex<[(String, Duration)]>([])
}
