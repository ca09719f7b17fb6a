import ConferClient
import ConferSession
import Foundation
import Logging
import Testing
import WSClient

/// What another user, a broken client or a replayed message can do to calls on a real
/// server process: each gets a typed refusal, is counted, and changes nothing.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct CallSecurityTests {
    /// Signs in on `/v1/calls` with `token`, sends `messages` (raw text) with a pause, and
    /// returns what came back.
    func exchange(_ server: TestServer, token: String, device: String = "raw", _ messages: [String]) async throws -> [CallServerMessage] {
        let url = server.url.replacingOccurrences(of: "http://", with: "ws://") + "/v1/calls"
        let received = Buffer()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let hello = String(decoding: SignalCodec.encode(CallClientMessage.hello(token: token, device: device)), as: UTF8.self)
        try await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, outbound, _ in
            let reader = Task {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { received.data.withLock { $0.append(Data((text + "\n").utf8)) } }
                }
            }
            for message in [hello] + messages {
                try await outbound.write(.text(message))
                try await Task.sleep(for: .milliseconds(30))
            }
            try await Task.sleep(for: .milliseconds(300))
            try await outbound.close(.normalClosure, reason: nil)
            _ = try? await reader.value
        }
        let text = received.data.withLock { String(decoding: $0, as: UTF8.self) }
        return text.split(separator: "\n").compactMap { try? SignalCodec.decodeCallServer(Array($0.utf8)) }
    }

    func text(_ message: CallClientMessage) -> String { String(decoding: SignalCodec.encode(message), as: UTF8.self) }

    func refusals(_ messages: [CallServerMessage]) -> [SessionRefusal] {
        messages.compactMap { if case .refused(_, _, _, let reason) = $0 { reason } else { nil } }
    }

    func client(_ server: TestServer, _ identity: String, device: String = "app") async throws -> CallClient {
        let client = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken(identity), device: device))
        try await client.start()
        return client
    }

    func metric(_ server: TestServer, _ line: String) async throws -> Double {
        let text = try await fetch(server.url + "/metrics")
        guard let found = text.split(separator: "\n").first(where: { $0.hasPrefix(line + " ") }) else { return 0 }
        return Double(found.split(separator: " ").last ?? "") ?? 0
    }

    @Test func anotherUserCannotAnswerEndOrReadSomeoneElsesCall() async throws {
        let server = try await TestServer()
        let alice = try await client(server, "alice")
        let bob = try await client(server, "bob")
        let call = try await alice.dial("bob", video: false)
        #expect(await bob.ringing.values.first { !$0.isEmpty }?.first?.id == call.id)

        let answers = try await exchange(server, token: try await server.callToken("mallory"), [
            text(.accept(call: call.id)), text(.decline(call: call.id)), text(.end(call: call.id, lost: false)),
            text(.setItems(call: call.id, items: ["x": "y"])), text(.log(ref: 7, CallLogQuery())),
        ])
        #expect(refusals(answers) == [.unknownCall, .unknownCall, .unknownCall, .unknownCall])
        let page = answers.compactMap { if case .log(7, let page) = $0 { page } else { nil } }.first
        #expect(page?.calls.isEmpty == true, "mallory's log holds none of alice's and bob's calls")
        #expect(call.state.current.phase == .ringing, "the call rings on")
        #expect(call.state.current.record.customItems.isEmpty)

        // A token for meetings opens no call session, and a call token no meeting.
        let meetingToken = try await server.token("bob")
        #expect(refusals(try await exchange(server, token: meetingToken, [])) == [.wrongRoom])

        let ringing = try #require(bob.ringing.current.first)
        await ringing.accept()
        #expect(await call.state.values.first { $0.phase == .accepted } != nil)
        let late = try await exchange(server, token: try await server.callToken("bob"), device: "tablet", [text(.accept(call: call.id))])
        #expect(refusals(late) == [.callAnswered], "a second accept from another device of bob")
        await call.end()
        #expect(await call.ended().result == .canceled)
        let afterEnd = try await exchange(server, token: try await server.callToken("bob"), device: "tablet", [text(.accept(call: call.id))])
        #expect(refusals(afterEnd) == [.callAnswered], "an accept after the end")
        #expect(try await metric(server, #"confer_refusals_total{reason="unknownCall"}"#) >= 4)
        #expect(try await metric(server, #"confer_refusals_total{reason="callAnswered"}"#) >= 2)
        await alice.stop()
        await bob.stop()
        await server.stop()
    }

    @Test func aConnectionThatSaysNothingIsClosedAsTimedOut() async throws {
        let server = try await TestServer()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let start = ContinuousClock.now
        let close = try await WebSocketClient.connect(url: server.url.replacingOccurrences(of: "http://", with: "ws://") + "/v1/calls",
                                                      configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, _, _ in
            for try await _ in inbound.messages(maxSize: 1 << 20) {}
        }
        let waited = ContinuousClock.now - start
        guard case .unknown(let code) = close?.closeCode else {
            Issue.record("closed without an application code: \(String(describing: close))")
            return
        }
        #expect(code == DisconnectReason.timedOut.closeCode)
        #expect(waited >= .seconds(9) && waited < .seconds(20), "closed after \(waited)")
        await server.stop()
    }

    @Test func selfUnknownAndMalformedDialsAreRefusedWithAReason() async throws {
        let server = try await TestServer()
        let alice = try await client(server, "alice")
        for (callee, timeout, expected) in [("alice", nil, SessionRefusal.selfCall), ("nobody", nil, .calleeUnknown),
                                            ("", nil, .invalidParameters), ("bob", Duration.seconds(-1), .invalidParameters)] {
            do {
                _ = try await alice.dial(callee, video: true, ringingTimeout: timeout)
                Issue.record("dialing \(callee) was not refused")
            } catch let error as CallClientError {
                #expect(error == .refused(expected), "dialing \(callee)")
            }
        }
        let answers = try await exchange(server, token: try await server.callToken("mallory"), [
            "{not json", #"{"v":1,"m":{"dial":{"ref":1}}}"#, #"{"v":1,"m":{"ring":{}}}"#, text(.hello(token: "x", device: "y")),
            text(.log(ref: 2, CallLogQuery(limit: 1000))),
        ])
        #expect(refusals(answers) == [.malformedMessage, .malformedMessage, .unknownMessageType, .outOfOrder, .invalidParameters])
        let log = try await alice.callLog()
        #expect(log.calls.map(\.result) == [.dialFailed], "only the unknown callee is a call in the log: \(log.calls)")
        #expect(log.calls.first?.failure == .calleeUnknown)
        await alice.stop()
        await server.stop()
    }

    /// A device waiting for calls outlasts its token: the server renews it while the device
    /// is signed in, and a dropped connection signs in again with the renewal (alice's 4 s
    /// token, dropped at 6 s), where a call then rings. With `--no-token-refresh` the same
    /// drop cannot sign in again: the first token has expired.
    @Test(arguments: [true, false])
    func aDeviceOutlastsItsTokenAndSignsInAgainWithTheRenewal(renewing: Bool) async throws {
        let server = try await TestServer(arguments: renewing ? [] : ["--no-token-refresh"])
        let alice = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken("alice", ttl: 4),
                                                                          device: "phone"))
        try await alice.start()
        let first = await alice.currentToken
        try await Task.sleep(for: .seconds(6))
        #expect(await alice.currentToken != first || !renewing, "renewed while signed in")
        await alice.dropConnection()
        let deadline = ContinuousClock.now + .seconds(10)
        func settled(_ state: ConnectionState) -> Bool {
            if case .disconnected = state { return true }
            return state == .reconnected
        }
        while ContinuousClock.now < deadline, !settled(alice.connection.current) {
            try await Task.sleep(for: .milliseconds(50))
        }
        guard renewing else {
            #expect(alice.connection.current == .disconnected(.refused), "the expired token refused: \(alice.connection.current)")
            await alice.stop()
            await server.stop()
            return
        }
        #expect(alice.connection.current == .reconnected)
        let bob = try await client(server, "bob")
        let call = try await bob.dial("alice", video: false)
        let ringing = try #require(await alice.ringing.values.first { !$0.isEmpty }?.first)
        #expect(ringing.id == call.id, "the call rings on the device signed in again")
        await call.end()
        await alice.stop()
        await bob.stop()
        await server.stop()
    }

    @Test func aSideThatDropsAndReturnsWithinTheWindowReconnects() async throws {
        let server = try await TestServer()
        let alice = try await client(server, "alice")
        let bob = try await client(server, "bob")
        let call = try await alice.dial("bob", video: false)
        let ringing = try #require(await bob.ringing.values.first { !$0.isEmpty }?.first)
        await ringing.accept()
        let events = call.events.events
        await bob.dropConnection()
        var seen: [CallEvent] = []
        for await event in events {
            seen.append(event)
            if case .reconnected = event { break }
        }
        #expect(seen.contains(.reconnecting("bob")) && seen.contains(.reconnected("bob")), "\(seen)")
        #expect(call.state.current.phase == .accepted, "the call goes on")
        // Bob's side hears the call as it stands once it has signed in again (the answer may
        // have crossed the drop).
        #expect(await ringing.state.values.first { $0.phase == .accepted } != nil, "bob's side resumed the same call")
        await ringing.end()
        #expect(await call.ended().result == .declined, "hung up by the callee before media connected")
        await alice.stop()
        await bob.stop()
        await server.stop()
    }
}
