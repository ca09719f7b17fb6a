import ConferClient
import ConferLive
import ConferRTP
import ConferSRTP
import ConferSession
import ConferTestSupport
import Foundation
import Testing

/// The call client library against a real server process: two devices in this process,
/// each with its own WebSocket and UDP socket, media straight between them.
@Suite(.serialized, .timeLimit(.minutes(2)), .wallClockExclusive)
struct CallClientTests {
    @Test func muteAndStopVideoReachTheOtherSideAndTheMedia() async throws {
        let server = try await TestServer()
        func client(_ identity: String) async throws -> CallClient {
            let client = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken(identity),
                                                                               device: "app"))
            try await client.start()
            return client
        }
        let alice = try await client("alice")
        let bob = try await client("bob")
        let call = try await alice.dial("bob", video: true, customItems: ["a": "1"])
        let answer = try #require(await bob.ringing.values.first { !$0.isEmpty }?.first)
        #expect(answer.customItems.current == ["a": "1"], "the callee sees the items the caller dialed with")
        await answer.accept()
        let aliceControl = LiveMeetingControl(), bobControl = LiveMeetingControl()
        let aliceMedia = Task { try await CallMediaSession.run(call, control: aliceControl) }
        let bobMedia = Task { try await CallMediaSession.run(answer, control: bobControl) }
        #expect(await call.state.values.first { $0.phase == .connected } != nil)
        try await Task.sleep(for: .seconds(2))
        let before = bobControl.figures.framesReceived
        #expect(before > 0, "bob decodes alice's camera")

        await call.stopVideo()
        await call.mute()
        let seen = await answer.remoteSettings.values.first { !$0.video && !$0.audio }
        #expect(seen == CallSettings(audio: false, video: false))
        // Frames in flight land within a few hundred ms; after that nothing more comes.
        try await Task.sleep(for: .seconds(1))
        let stopped = bobControl.figures.framesReceived
        try await Task.sleep(for: .seconds(2))
        #expect(bobControl.figures.framesReceived - stopped <= 2, "no pictures while alice's camera is off")
        #expect(bobControl.figures.audioPacketsReceived > 0, "the muted microphone still sends (silence)")
        await call.startVideo()
        // Pictures again once the camera is back: 10 frames take well under a second on an
        // idle machine; a busy one gets up to ten seconds for the keyframe and the rest.
        let restarted = ContinuousClock.now
        while bobControl.figures.framesReceived <= stopped + 10, ContinuousClock.now - restarted < .seconds(10) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(bobControl.figures.framesReceived > stopped + 10, "pictures again once the camera is back")

        await answer.setItems(["b": "2"])
        #expect(await call.customItems.values.first { $0["b"] == "2" } == ["a": "1", "b": "2"])
        await answer.end()
        #expect(await call.ended().result == .completed)
        _ = try await aliceMedia.value
        _ = try await bobMedia.value
        let page = try await bob.callLog(CallLogQuery(role: .callee))
        #expect(page.calls.first?.customItems == ["a": "1", "b": "2"])
        #expect(page.calls.first?.endedBy == "bob")
        await alice.stop()
        await bob.stop()
        await server.stop()
    }

    /// A callee who names someone else's address gets nothing but the caller's consent
    /// challenges sent there, a few at first, then two a second, where its camera and
    /// microphone went before (RFC 7675's consent, as the host gives it in a meeting); even
    /// when it forges that address on feedback signed with its own keys.
    @Test func aCalleeWhoNamesAnotherMachinesAddressGetsOnlyChallengesSentThereEvenForgingIt() async throws {
        let victim = try CountingUDPSocket()
        defer { victim.close() }
        let server = try await TestServer()
        let alice = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken("alice"), device: "app"))
        let mallory = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken("mallory"), device: "app"))
        try await alice.start()
        try await mallory.start()
        let call = try await alice.dial("mallory", video: true)
        let answer = try #require(await mallory.ringing.values.first { !$0.isEmpty }?.first)
        await answer.accept()
        // Mallory runs no media: she names the victim's port as hers.
        await answer.describeMedia(MediaDescription(host: "127.0.0.1", port: victim.port, codec: "vp8", width: 320, height: 180, frameRate: 15))
        let control = LiveMeetingControl()
        let media = Task { try await CallMediaSession.run(call, control: control) }
        #expect(await call.state.values.first { $0.media?.peer.port == victim.port } != nil, "alice has the address")
        let keys = try #require(await answer.state.values.first { $0.media != nil }?.media)
        // Receiver reports about alice's streams, as mallory's receive side sends them (under
        // the key mallory receives with), from the victim's address.
        let forger = try SRTPSession(key: SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: keys.receiveKey), direction: .outbound)
        let report = try RTCPCompound.serialized([
            .receiverReport(RTCPReceiverReport(ssrc: LiveMeetingPlan.receiverSSRC(slot: keys.slot), reportBlocks: [])),
        ])
        for _ in 0 ..< 30 {
            var buffer = report + [UInt8](repeating: 0, count: 32)
            let length = try buffer.withUnsafeMutableBytes { try forger.protectRTCP($0, length: report.count) }
            victim.send(Array(buffer[0 ..< length]), toPort: keys.peer.port)
            try await Task.sleep(for: .milliseconds(100))
        }
        await call.end()
        let final = try await media.value
        await alice.stop()
        await mallory.stop()
        await server.stop()
        let sizes = victim.datagramSizes()
        #expect(final.framesSent == 0 && final.audioPacketsSent == 0, "alice's camera and microphone sent nothing: \(final.framesSent) frames")
        // Challenges 20, 40, 80, 160 and 320 ms apart, then 500: about 11 in these 3 s.
        #expect((1 ... 14).contains(sizes.count), "challenges for about 3 s: \(sizes)")
        #expect(sizes.allSatisfy { $0 <= 64 }, "each a challenge of 50 bytes: \(sizes)")
        #expect(final.consentGrants == 0 && final.consentChallengesSent == sizes.count, "all of them, none answered")
    }

    /// Only what authenticates under the other side's keys moves a side: junk, media under
    /// another key and feedback under another key, from an address the callee never named,
    /// move nothing and get nothing back, while the side has no consent and so would move.
    @Test func datagramsThatDoNotAuthenticateMoveNothing() async throws {
        let inside = try CountingUDPSocket()
        defer { inside.close() }
        let stranger = try CountingUDPSocket()
        defer { stranger.close() }
        let server = try await TestServer()
        let alice = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken("alice"), device: "app"))
        let bob = try CallClient(configuration: CallClientConfiguration(server: server.url, token: try await server.callToken("bob"), device: "app"))
        try await alice.start()
        try await bob.start()
        let call = try await alice.dial("bob", video: true)
        let answer = try #require(await bob.ringing.values.first { !$0.isEmpty }?.first)
        await answer.accept()
        // Bob runs no media: he names a port where nothing answers (behind a NAT, his inside one).
        await answer.describeMedia(MediaDescription(host: "127.0.0.1", port: inside.port, codec: "vp8", width: 320, height: 180, frameRate: 15))
        let control = LiveMeetingControl()
        let media = Task { try await CallMediaSession.run(call, control: control) }
        let keys = try #require(await answer.state.values.first { $0.media != nil }?.media)
        let alicePort = keys.peer.port
        let wrong = try SRTPSession(key: SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: [UInt8](repeating: 7, count: 30)),
                                    direction: .outbound)
        let report = try RTCPCompound.serialized([
            .receiverReport(RTCPReceiverReport(ssrc: LiveMeetingPlan.receiverSSRC(slot: keys.slot), reportBlocks: [])),
        ])
        var junk: [[UInt8]] = [[0x80, 96] + [UInt8](repeating: 0xA5, count: 200), [UInt8](repeating: 0, count: 60)]
        var buffer = report + [UInt8](repeating: 0, count: 32)
        let length = try buffer.withUnsafeMutableBytes { try wrong.protectRTCP($0, length: report.count) }
        junk.append(Array(buffer[0 ..< length]))
        for round in 0 ..< 20 {
            stranger.send(junk[round % junk.count], toPort: alicePort)
            try await Task.sleep(for: .milliseconds(100))
        }
        let figures = control.figures
        await call.end()
        let final = try await media.value
        await alice.stop()
        await bob.stop()
        await server.stop()
        #expect(figures.peerMoves == 0 && final.peerMoves == 0, "moved \(final.peerMoves) times")
        #expect(stranger.datagramSizes().isEmpty, "nothing went back to the stranger")
        #expect(!inside.datagramSizes().isEmpty, "alice's challenges went where bob said")
    }
}
