import ConferClient
import ConferLive
import ConferJobs
import ConferMedia
import ConferRTP
import ConferSRTP
import ConferSession
import ConferTestSupport
import Foundation
import Testing

/// Per-member rendering through the client library against a real server process: the
/// host hides a member's tile in the composite it draws, from the next frame, and shows it
/// again; the others go on. Three members in this process, each with its own WebSocket and
/// UDP socket.
@Suite(.serialized, .timeLimit(.minutes(2)), .wallClockExclusive)
struct MeetingRenderTests {
    /// A small canvas and cameras: three members' media in one debug process on two cores.
    static var small: MeetingMediaOptions {
        var options = MeetingMediaOptions()
        options.canvasWidth = 320
        options.canvasHeight = 180
        options.frameRate = 15
        options.cameraWidth = 160
        options.cameraHeight = 90
        return options
    }

    @Test func theHostHidesAMembersTileAndShowsItAgain() async throws {
        let directory = NSTemporaryDirectory() + "confer-render-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer()
        let (host, approver, hostMedia) = try await Self.hostWithMedia(server)
        let (alice, aliceMedia) = try await Self.member("alice", of: server)
        var bobOptions = Self.small
        bobOptions.videoOutput = "\(directory)/bob.y4m"
        let (bob, bobMedia) = try await Self.member("bob", of: server, options: bobOptions)
        let slots = (alice: try #require(host.room.current?.media["alice"]?.slot), bob: try #require(host.room.current?.media["bob"]?.slot))
        try await Task.sleep(for: .seconds(2))
        await hostMedia.enableVideoRender("alice", false)
        #expect(await hostMedia.rendering(of: "alice").video == false)
        try await Task.sleep(for: .seconds(2))
        await hostMedia.enableVideoRender("alice", true)
        try await Task.sleep(for: .seconds(2))
        await Self.end(media: [bobMedia, aliceMedia, hostMedia], members: [alice, bob, host], approver: approver, server: server)

        let reader = try VideoFileReader(path: "\(directory)/bob.y4m")
        var frames: [VideoFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        #expect(frames.count >= 60, "bob rendered \(frames.count) composites in about 6 s at 15 fps")
        let tests = MediaProcessTests()
        func shows(_ frame: VideoFrame, _ slot: UInt32) -> Bool { tests.coverage(of: TestPalette.color(at: Int(slot) - 1), in: frame) > 0.02 }
        // About 2 s in, alice is shown; in the middle of the hidden spell she is not (bob is);
        // at the end she is back.
        let count = frames.count
        let before = frames[count * 2 / 7], hidden = frames[count * 4 / 7], after = frames[count - 3]
        #expect(shows(before, slots.alice) && shows(before, slots.bob))
        #expect(!shows(hidden, slots.alice), "alice's tile hidden by the host")
        #expect(shows(hidden, slots.bob), "the others go on")
        #expect(shows(after, slots.alice), "alice back once the host shows her again")
    }

    @Test func anObserverMadeAParticipantStartsSending() async throws {
        let server = try await TestServer()
        let (host, approver, hostMedia) = try await Self.hostWithMedia(server)
        // The observer receives the composite.
        let (carol, carolMedia) = try await Self.member("carol", role: "observer", of: server)
        try await Task.sleep(for: .seconds(1))
        #expect(await carolMedia.figures.framesSent == 0, "an observer sends nothing")
        #expect(received(await hostMedia.figures, "carol") == 0)
        await carol.applyForParticipant()
        #expect(await carol.room.values.first { $0?.member("carol")?.role == .participant } != nil)
        try await Task.sleep(for: .seconds(3))
        let figures = await carolMedia.figures
        #expect(figures.framesSent > 20, "carol's media restarted sending: \(figures.framesSent) frames")
        #expect(received(await hostMedia.figures, "carol") > 0, "the host receives carol now")
        await Self.end(media: [carolMedia, hostMedia], members: [carol, host], approver: approver, server: server)
    }

    /// A device turned off stops at the member's own media, not only in the host's
    /// composite: a member who joins with its camera off sends no frame until it turns it on,
    /// a camera it turns off again sends none (and the host decodes none from it), and a
    /// microphone the host turns off sends silence.
    @Test func aDeviceTurnedOffSendsNothingFromTheMembersMachine() async throws {
        let server = try await TestServer()
        let (host, approver, hostMedia) = try await Self.hostWithMedia(server)
        // Alice's microphone hears a steady tone, so what it sends is voice until it is turned off.
        let directory = NSTemporaryDirectory() + "confer-devices-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var tone = ToneSource(frequency: 440, amplitude: 0.3, pattern: .continuous)
        let voice = try AudioFileWriter(path: "\(directory)/voice.wav", channels: 1, bitrate: nil)
        for _ in 0 ..< 3000 { try voice.write(tone.next(frameCount: 480)) }
        try voice.finish()
        var options = Self.small
        options.microphoneFile = "\(directory)/voice.wav"
        var configuration = MeetingClientConfiguration(server: server.url, token: try await server.token("alice"))
        configuration.devices = DeviceStates(microphone: true, camera: false)
        let alice = try MeetingClient(configuration: configuration)
        try await alice.join()
        let aliceMedia = MeetingMedia(client: alice, options: options)
        await aliceMedia.start()
        #expect(await aliceMedia.firstFrame.values.first { $0 != nil } != nil)
        /// What alice's media sent over the next two seconds (figures are published each second).
        func sentOverTwoSeconds() async throws -> (frames: Int, bytes: Int) {
            let start = await aliceMedia.figures
            try await Task.sleep(for: .seconds(2))
            let end = await aliceMedia.figures
            return (end.framesSent - start.framesSent, end.bytesSent - start.bytesSent)
        }
        func devices(_ camera: Bool, _ microphone: Bool) async -> Bool {
            await alice.room.values.first { $0?.member("alice")?.devices == DeviceStates(microphone: microphone, camera: camera) } != nil
        }
        let joinedOff = try await sentOverTwoSeconds()
        let everSent = await aliceMedia.figures.framesSent
        #expect(joinedOff.frames == 0 && everSent == 0, "alice joined with her camera off and sent \(everSent) frames")

        await alice.setDevice(.camera, on: true)
        #expect(await devices(true, true))
        try await Task.sleep(for: .milliseconds(1500))
        let on = try await sentOverTwoSeconds()
        #expect(on.frames >= 20, "alice sent \(on.frames) frames in 2 s with her camera on")

        await alice.setDevice(.camera, on: false)
        #expect(await devices(false, true))
        try await Task.sleep(for: .milliseconds(1500)) // figures are published each second: these count from after the change
        let cameraOff = try await sentOverTwoSeconds()
        #expect(cameraOff.frames == 0, "alice sent \(cameraOff.frames) frames with her camera off")
        #expect(received(await hostMedia.figures, "alice") == 0, "the host decodes nothing of hers")

        await host.mute("alice", device: .microphone)
        #expect(await devices(false, false))
        try await Task.sleep(for: .milliseconds(1500))
        let bothOff = try await sentOverTwoSeconds()
        #expect(bothOff.bytes * 2 < cameraOff.bytes, "voice \(cameraOff.bytes) bytes in 2 s, silence \(bothOff.bytes)")
        await Self.end(media: [aliceMedia, hostMedia], members: [alice, host], approver: approver, server: server)
    }

    /// A member who announces someone else's address gets nothing sent there but the host's
    /// small consent challenges: the host sends a member media only once the address has
    /// answered one (RFC 7675's consent checks). Mallory names a victim's address as hers and,
    /// holding her own keys, forges the victim's address on packets that authenticate, which
    /// gave consent when any authentic packet did (185 datagrams reached the victim then).
    /// An honest member in the same meeting is served.
    @Test func aMemberWhoNamesAnotherMachinesAddressGetsOnlyChallengesSentThereEvenForgingIt() async throws {
        let victim = try CountingUDPSocket()
        defer { victim.close() }
        // A second machine she never names but forges too: a datagram that authenticates from
        // an address no one announced moves her there (as behind a NAT), to be challenged.
        let bystander = try CountingUDPSocket()
        defer { bystander.close() }
        let server = try await TestServer()
        let (host, approver, hostMedia) = try await Self.hostWithMedia(server)
        let options = Self.small
        let (bob, bobMedia) = try await Self.member("bob", of: server)
        let mallory = try MeetingClient(configuration: MeetingClientConfiguration(server: server.url, token: try await server.token("mallory")))
        try await mallory.join()
        // Mallory runs no media: she names the victim's port as hers.
        await mallory.announceMedia(MediaDescription(host: "127.0.0.1", port: victim.port, codec: options.codec.rawValue,
                                                     width: options.cameraWidth, height: options.cameraHeight, frameRate: options.frameRate))
        #expect(await host.room.values.first { $0?.member("mallory")?.media?.port == victim.port } != nil, "the host knows the address")
        let room = await mallory.room.values.first { $0?.media["mallory"] != nil && $0?.member("boss")?.media != nil }
        let grant = try #require(room??.media["mallory"])
        let hostPort = try #require(room??.member("boss")?.media?.port)
        // Receiver reports about the composite, as mallory's receive side sends them (under
        // her downlink key), from the victim's address.
        let forger = try SRTPSession(key: SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: grant.downlinkKey), direction: .outbound)
        let report = try RTCPCompound.serialized([
            .receiverReport(RTCPReceiverReport(ssrc: LiveMeetingPlan.receiverSSRC(slot: grant.slot), reportBlocks: [])),
        ])
        let framesBefore = await bobMedia.figures.framesReceived
        for round in 0 ..< 30 {
            var buffer = report + [UInt8](repeating: 0, count: 32)
            let length = try buffer.withUnsafeMutableBytes { try forger.protectRTCP($0, length: report.count) }
            (round % 2 == 0 ? victim : bystander).send(Array(buffer[0 ..< length]), toPort: hostPort)
            try await Task.sleep(for: .milliseconds(100))
        }
        let framesAfter = await bobMedia.figures.framesReceived
        let hostFigures = await hostMedia.figures
        await Self.end(media: [bobMedia, hostMedia], members: [bob, mallory, host], approver: approver, server: server)
        #expect(framesAfter - framesBefore >= 20, "the host went on serving bob: \(framesAfter - framesBefore) frames in 3 s")
        // Challenges at 0, 20, 60, 140, 300 and 620 ms, then two a second, from the first again
        // at each move (at most one a second): about 12 at one address in these 3 s, 20 at most.
        for (name, socket) in [("victim", victim), ("bystander", bystander)] {
            let sizes = socket.datagramSizes()
            #expect((1 ... 20).contains(sizes.count), "challenges only at the \(name): \(sizes.count) datagrams")
            #expect(sizes.allSatisfy { $0 <= 64 }, "nothing but challenges, of 50 bytes, at the \(name): \(sizes)")
        }
        #expect((1 ... 4).contains(hostFigures.membersMoved), "moved at most once a second: \(hostFigures.membersMoved)")
        #expect(hostFigures.consentGrants == 1, "bob's grant, and none of mallory's")
    }

    /// The host takes a member's datagrams by the addresses it announced, so a member could
    /// name another member's address, as its own or as an alternate, to have the other's
    /// datagrams counted as hers: they would fail her keys and be dropped, cutting the other
    /// off. An address stays with the member who holds it: Mallory names bob's address beside a
    /// victim's, then as hers with the victim's beside it; bob is served and heard throughout,
    /// and the victim gets only challenges.
    @Test func aMemberWhoNamesAnotherMembersAddressTakesNothingOfIts() async throws {
        let victim = try CountingUDPSocket()
        defer { victim.close() }
        let server = try await TestServer()
        let (host, approver, hostMedia) = try await Self.hostWithMedia(server)
        let options = Self.small
        let (bob, bobMedia) = try await Self.member("bob", of: server)
        let bobsPort = try #require(await host.room.values.first { $0?.member("bob")?.media != nil }??.member("bob")?.media?.port)
        try await Task.sleep(for: .seconds(1))
        let mallory = try MeetingClient(configuration: MeetingClientConfiguration(server: server.url, token: try await server.token("mallory")))
        try await mallory.join()
        let servedBefore = await bobMedia.figures.framesReceived
        var heard: [Int] = []
        for (first, second) in [(victim.port, bobsPort), (bobsPort, victim.port)] {
            let heardBefore = await hostMedia.figures.framesReceived
            await mallory.announceMedia(MediaDescription(host: "127.0.0.1", port: first, alternates: [.init(host: "127.0.0.1", port: second)],
                                                         codec: options.codec.rawValue, width: options.cameraWidth,
                                                         height: options.cameraHeight, frameRate: options.frameRate))
            #expect(await host.room.values.first { $0?.member("mallory")?.media?.port == first } != nil, "the host knows both addresses")
            try await Task.sleep(for: .seconds(1.5))
            heard.append(await hostMedia.figures.framesReceived - heardBefore)
        }
        let served = await bobMedia.figures.framesReceived - servedBefore
        let hostFigures = await hostMedia.figures
        await Self.end(media: [bobMedia, hostMedia], members: [bob, mallory, host], approver: approver, server: server)
        // Were bob's address mallory's, his datagrams would fail her keys and be dropped.
        #expect(heard.allSatisfy { $0 >= 15 }, "the host still decodes bob's camera: \(heard) frames in each 1.5 s")
        #expect(served >= 40, "bob is served as before: \(served) frames in 3 s")
        #expect(hostFigures.consentGrants == 1, "bob's grant, and none of mallory's")
        let sizes = victim.datagramSizes()
        #expect((1 ... 20).contains(sizes.count) && sizes.allSatisfy { $0 <= 64 }, "only challenges at the victim: \(sizes)")
    }

    /// A member whose datagrams come from another address than it announced (a NAT's
    /// mapping) is served there: the host moves it to that address once a datagram from it
    /// authenticates under the member's keys, and challenges it there. Here bob, receiving,
    /// announces another port, one where nothing answers: without the move, nothing would
    /// reach him again.
    @Test func aMemberBehindANATIsServedWhereItsDatagramsComeFrom() async throws {
        let elsewhere = try CountingUDPSocket()
        defer { elsewhere.close() }
        let server = try await TestServer()
        let (host, approver, hostMedia) = try await Self.hostWithMedia(server)
        let options = Self.small
        let (bob, bobMedia) = try await Self.member("bob", of: server)
        await bob.announceMedia(MediaDescription(host: "127.0.0.1", port: elsewhere.port, codec: options.codec.rawValue,
                                                 width: options.cameraWidth, height: options.cameraHeight, frameRate: options.frameRate))
        #expect(await host.room.values.first { $0?.member("bob")?.media?.port == elsewhere.port } != nil, "the host has the new address")
        try await Task.sleep(for: .seconds(1))
        let framesBefore = await bobMedia.figures.framesReceived
        try await Task.sleep(for: .seconds(3))
        let framesAfter = await bobMedia.figures.framesReceived
        let hostFigures = await hostMedia.figures
        await Self.end(media: [bobMedia, hostMedia], members: [bob, host], approver: approver, server: server)
        #expect(framesAfter - framesBefore >= 40, "bob is served where his datagrams come from: \(framesAfter - framesBefore) frames in 3 s")
        #expect(hostFigures.membersMoved >= 1 && hostFigures.consentGrants >= 2, "moved \(hostFigures.membersMoved), grants \(hostFigures.consentGrants)")
        let sizes = elsewhere.datagramSizes()
        #expect(sizes.allSatisfy { $0 <= 64 } && sizes.count <= 14, "only challenges at the announced port: \(sizes)")
    }

    /// A host behind a NAT announces the address it has inside (here a port where nothing
    /// answers), and its datagrams come from another: a member moves to where they come from
    /// once they authenticate under the host's keys, and challenges it there. Bob receives the
    /// composite; the announced port gets nothing but his first challenges.
    @Test func aHostBehindANATIsReachedWhereItsDatagramsComeFrom() async throws {
        let inside = try CountingUDPSocket()
        defer { inside.close() }
        let server = try await TestServer()
        let (host, approver) = try await Self.approvingHost(server)
        var options = Self.small
        options.announcedAddress = AnnouncedMediaAddress(host: "127.0.0.1", port: inside.port)
        let hostMedia = MeetingMedia(client: host, options: options)
        await hostMedia.start()
        let (bob, bobMedia) = try await Self.member("bob", of: server)
        #expect(await bob.room.values.first { $0?.member("boss")?.media?.port == inside.port } != nil, "bob is told the inside address")
        let framesBefore = await bobMedia.figures.framesReceived
        try await Task.sleep(for: .seconds(2))
        let bobFigures = await bobMedia.figures
        await Self.end(media: [bobMedia, hostMedia], members: [bob, host], approver: approver, server: server)
        #expect(bobFigures.framesReceived - framesBefore >= 30, "bob is served from where the host's datagrams come: \(bobFigures.framesReceived - framesBefore) frames in 2 s")
        #expect(bobFigures.peerMoves == 1 && bobFigures.consentGrants >= 1, "moved \(bobFigures.peerMoves), grants \(bobFigures.consentGrants)")
        let sizes = inside.datagramSizes()
        #expect(sizes.count <= 14 && sizes.allSatisfy { $0 <= 64 }, "only challenges at the announced port: \(sizes)")
    }

    /// Boss, joined as the host of `server`'s room, letting in every member who asks to join
    /// and every observer who applies; cancel the task to stop.
    static func approvingHost(_ server: TestServer) async throws -> (MeetingClient, Task<Void, Never>) {
        let host = try MeetingClient(configuration: MeetingClientConfiguration(server: server.url, token: try await server.token("boss", role: "host")))
        let events = host.events.events
        let approver = Task {
            for await event in events {
                switch event {
                case .room(.joinRequested(let request)): await host.approve(request.identity)
                case .room(.applicationReceived(let request)): await host.answerApplication(from: request.identity, approve: true)
                default: break
                }
            }
        }
        try await host.join()
        return (host, approver)
    }

    /// The approving host of `server`'s room with its media running (``small`` cameras).
    static func hostWithMedia(_ server: TestServer) async throws -> (MeetingClient, Task<Void, Never>, MeetingMedia) {
        let (host, approver) = try await approvingHost(server)
        let media = MeetingMedia(client: host, options: small)
        await media.start()
        return (host, approver, media)
    }

    /// `identity`, joined to `server`'s room with its media running, once it has decoded
    /// its first composite.
    static func member(_ identity: String, role: String = "participant", of server: TestServer,
                       options: MeetingMediaOptions = small) async throws -> (MeetingClient, MeetingMedia) {
        let member = try MeetingClient(configuration: MeetingClientConfiguration(server: server.url, token: try await server.token(identity, role: role)))
        try await member.join()
        let media = MeetingMedia(client: member, options: options)
        await media.start()
        #expect(await media.firstFrame.values.first { $0 != nil } != nil, "\(identity) receives the composite")
        return (member, media)
    }

    /// Stops `media`, then the host's approvals, then the members' sessions, then the server.
    static func end(media: [MeetingMedia], members: [MeetingClient], approver: Task<Void, Never>, server: TestServer) async {
        for media in media { await media.stop() }
        approver.cancel()
        for member in members { await member.leave() }
        await server.stop()
    }

    /// Frames per second the host decodes from `identity`, as its figures say.
    func received(_ figures: LiveMeetingControl.Figures, _ identity: String) -> Double { figures.members[identity] ?? 0 }
}
