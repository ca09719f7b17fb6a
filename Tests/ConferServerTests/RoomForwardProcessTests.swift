import ConferRTP
import ConferTestSupport
import Foundation
import Testing

/// The room's forward across processes: a host forwards its canvas from the start, alone in
/// the room; the administrator names where the meeting goes for an
/// outside audience (`confer rooms forward`), the host running the meeting starts forwarding
/// there with a keyframe, the host role moves and the new host's machine forwards instead, and
/// the administrator stops it. The audience here is a UDP socket the test reads
/// (``CountingUDPSocket``), which tells the hosts' machines apart by the port they send from.
@Suite(.serialized, .timeLimit(.minutes(3)), .wallClockExclusive)
struct RoomForwardProcessTests {
    static let canvas = ["--size", "320x180", "--fps", "15", "--bitrate", "400"]
    static let camera = ["--camera-size", "160x90"]

    /// The composite's packets in what `socket` received: (source port, packet).
    static func composite(_ datagrams: [(port: Int, bytes: [UInt8])]) -> [(port: Int, packet: RTPPacket)] {
        datagrams.compactMap { datagram in
            guard let packet = try? RTPPacket(parsing: datagram.bytes), packet.header.ssrc == 0x5F00_0001,
                  packet.header.payloadType == 96 else { return nil }
            return (datagram.port, packet)
        }
    }

    /// The composite's packets `socket` receives until `enough` holds of them, or `seconds` pass.
    static func collect(_ socket: CountingUDPSocket, for seconds: Int,
                        until enough: ([(port: Int, packet: RTPPacket)]) -> Bool) async throws -> [(port: Int, packet: RTPPacket)] {
        var packets: [(port: Int, packet: RTPPacket)] = []
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline, !enough(packets) {
            try await Task.sleep(for: .milliseconds(100))
            packets += composite(socket.datagramsWithPorts())
        }
        return packets
    }

    /// How many frames `packets` carry (a frame's packets share a timestamp).
    static func frames(_ packets: [(port: Int, packet: RTPPacket)]) -> Int { Set(packets.map(\.packet.header.timestamp)).count }

    static func isKeyframeStart(_ packet: RTPPacket) -> Bool {
        packet.payload.withUnsafeBytes { payload in
            (try? VP8PayloadDescriptor.parse(payload)).map { $0.startsFrame && $0.isKeyframe } ?? false
        }
    }

    @Test func theAdministratorsForwardStartsWithAKeyframeFollowsTheHostRoleAndStops() async throws {
        let audience = try CountingUDPSocket(), own = try CountingUDPSocket()
        defer {
            audience.close()
            own.close()
        }
        let server = try await TestServer()
        // Boss forwards somewhere of its own until the room's forward takes its place.
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "all", "--events", "--forward-video", "127.0.0.1:\(own.port)"] + Self.canvas)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "host: \(host.stderr)")
        // Alone in the room, the host forwards already: its audience sees the canvas.
        let alone = try await Self.collect(own, for: 10) { Self.frames($0) >= 10 }
        #expect(Self.frames(alone) >= 10, "the host alone forwards its canvas: \(alone.count) packets")
        #expect(alone.first.map { Self.isKeyframeStart($0.packet) } == true, "starting with a keyframe")
        let alice = try server.member("join", token: try await server.token("alice"), ["--events"] + Self.camera)
        // The meeting runs: alice decodes composites.
        #expect(await alice.wait(upTo: 30) { process in
            process.events.contains { ($0["event"] as? String) == "connectInfo" && ((($0["info"] as? [String: Any])?["framesReceived"] as? Int) ?? 0) > 15 }
        }, "alice: \(alice.stderr)")
        #expect(audience.datagramsWithPorts().isEmpty, "nothing is forwarded before the administrator says where")
        #expect(!Self.composite(own.datagramsWithPorts()).isEmpty, "the host's own forward runs")

        // Bad addresses are the command's error; the room keeps no forward.
        let named = try await server.rooms(["forward", "room", "--video", "janus.example:5004"])
        #expect(named.status != 0 && named.output.contains("IP address"), "\(named.output)")
        // The server checks for itself what a client that skips those checks sends.
        func put(_ body: String, room: String = "room", token: String? = nil) async throws -> String {
            try await curl(["-s", "-w", " %{http_code}", "-X", "PUT", "-H", "Authorization: Bearer \(token ?? server.adminToken)",
                            "-H", "Content-Type: application/json", "-d", body, server.url + "/v1/rooms/\(room)/forward"])
        }
        let badAddress = try await put(#"{"video":"janus.example:5004"}"#)
        #expect(badAddress.hasSuffix(" 400") && badAddress.contains(#""error":"invalidParameters""#), "\(badAddress)")
        let audioRTCPAlone = try await put(#"{"video":"127.0.0.1:9","audioRTCP":"127.0.0.1:10"}"#)
        #expect(audioRTCPAlone.hasSuffix(" 400") && audioRTCPAlone.contains("goes with audio"), "\(audioRTCPAlone)")
        #expect(try await put("not json").hasSuffix(" 400"))
        #expect(try await put(#"{"audio":"127.0.0.1:9"}"#).hasSuffix(" 400"), "no video")
        #expect(try await put(#"{"video":"127.0.0.1:9"}"#, room: "nowhere").hasSuffix(" 404"))
        #expect(try await put(#"{"video":"127.0.0.1:9"}"#, token: "wrong").hasSuffix(" 401"))
        let deleteElsewhere = try await curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE",
                                              "-H", "Authorization: Bearer \(server.adminToken)", server.url + "/v1/rooms/nowhere/forward"])
        #expect(deleteElsewhere == "404")
        #expect(!(try await server.rooms(["show", "room"])).output.contains("forward:"), "nothing refused was kept")

        let set = try await server.rooms(["forward", "room", "--video", "127.0.0.1:\(audience.port)"])
        #expect(set.status == 0 && set.output.contains("room forwards the composite to 127.0.0.1:\(audience.port)"), "\(set.output)")
        #expect(await host.wait(upTo: 10) { $0.eventNames.contains("forwardChanged") }, "the host heard of it: \(host.stderr)")
        let shown = try await server.rooms(["show", "room"])
        #expect(shown.output.contains("forward: the composite to 127.0.0.1:\(audience.port)"), "\(shown.output)")

        // Two seconds of composite from boss's machine; the first frame it forwards is a keyframe.
        let received = try await Self.collect(audience, for: 15) { Self.frames($0) >= 30 }
        #expect(Self.frames(received) >= 30, "\(received.count) packets forwarded")
        let bossPort = try #require(received.first?.port)
        #expect(received.allSatisfy { $0.port == bossPort }, "one sender: the host's socket")
        // The room's forward goes on with the host's stream: one SSRC, the next sequence
        // number, the same timestamp mapping; an SFU sees no jump.
        let ownLast = try #require(Self.composite(own.datagramsWithPorts()).last, "the host's own forward ran until the switch")
        #expect(received[0].packet.header.sequenceNumber == ownLast.packet.header.sequenceNumber &+ 1,
                "\(ownLast.packet.header.sequenceNumber) then \(received[0].packet.header.sequenceNumber)")
        #expect(received[0].packet.header.timestamp &- ownLast.packet.header.timestamp <= 90_000, "timestamps go on")
        try await Task.sleep(for: .milliseconds(500))
        #expect(Self.composite(own.datagramsWithPorts()).isEmpty, "the room's forward took the place of the host's own")
        let first = try #require(received.first { $0.packet.payload.first.map { $0 & 0x10 != 0 } ?? false })
        let startsWithKeyframe = Self.isKeyframeStart(first.packet)
        #expect(startsWithKeyframe, "the audience starts with a keyframe")

        // The host role moves to alice: her machine forwards now, from its own socket, and boss's stops.
        let role = try await server.rooms(["role", "room", "alice", "host"])
        #expect(role.status == 0, "\(role.output)")
        let afterTransfer = try await Self.collect(audience, for: 20) { Self.frames($0.filter { $0.port != bossPort }) >= 15 }
        let fromAlice = afterTransfer.filter { $0.port != bossPort }
        #expect(Self.frames(fromAlice) >= 15, "alice's machine forwards: \(afterTransfer.count) packets, \(alice.stderr)")
        let aliceStartsWithKeyframe = fromAlice.first.map { Self.isKeyframeStart($0.packet) } == true
        #expect(aliceStartsWithKeyframe, "the new host's forward starts with a keyframe")
        try await Task.sleep(for: .seconds(1))
        _ = audience.datagramsWithPorts()
        try await Task.sleep(for: .seconds(1))
        let later = Self.composite(audience.datagramsWithPorts())
        #expect(!later.isEmpty && later.allSatisfy { $0.port != bossPort }, "boss's machine stopped forwarding")

        // Stopped: nothing more arrives.
        let stop = try await server.rooms(["forward", "room", "--stop"])
        #expect(stop.status == 0 && stop.output.contains("forwards nothing now"), "\(stop.output)")
        try await Task.sleep(for: .seconds(1))
        _ = audience.datagramsWithPorts()
        try await Task.sleep(for: .seconds(1))
        #expect(audience.datagramsWithPorts().isEmpty, "the forward stopped")

        for process in [alice, host] { process.signal(SIGINT) }
        #expect(await alice.exitStatus() == 0, "alice: \(alice.stderr)")
        #expect(await host.exitStatus() == 0, "boss: \(host.stderr)")
        await server.stop()
    }
}
