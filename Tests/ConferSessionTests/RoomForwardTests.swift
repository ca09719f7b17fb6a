import ConferSession
import Testing

/// The room's forward: set by its administrator, shown to the host (whoever that is) and to
/// administrators only, carried through a host transfer and a reconnection.
@Suite struct RoomForwardTests {
    let forward = RoomForward(video: "10.0.0.5:5004", videoRTCP: "10.0.0.5:5005", audio: "10.0.0.5:5006", audioRTCP: "10.0.0.5:5007")

    @Test func addressesAreIPAddressesAndPorts() {
        for good in [RoomForward(video: "127.0.0.1:1"), RoomForward(video: "255.255.255.255:65535"), RoomForward(video: "[::1]:5004"),
                     RoomForward(video: "[fe80::1:2]:9", videoRTCP: "[::ffff:10.0.0.1]:10"), forward] {
            #expect(throws: Never.self) { try good.validate() }
        }
        for (bad, field) in [(RoomForward(video: "janus.example:5004"), "video"), (RoomForward(video: "127.0.0.1"), "video"),
                             (RoomForward(video: "127.0.0.1:0"), "video"), (RoomForward(video: "127.0.0.1:65536"), "video"),
                             (RoomForward(video: "127.0.0.1:+5"), "video"), (RoomForward(video: "1.2.3:5"), "video"),
                             (RoomForward(video: "256.1.1.1:5"), "video"), (RoomForward(video: "[]:5"), "video"),
                             (RoomForward(video: "[1:2"), "video"), (RoomForward(video: " 1.2.3.4:5"), "video"),
                             (RoomForward(video: "1.2.3.4:5", videoRTCP: "1.2.3.4:x"), "videoRTCP"),
                             (RoomForward(video: "1.2.3.4:5", audio: "[g::1]:5"), "audio"),
                             (RoomForward(video: "1.2.3.4:5", audioRTCP: "1.2.3.4:6"), "audioRTCP")] {
            #expect(throws: RoomForwardError.self) { try bad.validate() }
            do { try bad.validate() } catch { #expect(error.field == field, "\(bad)") }
        }
        let noAudio = RoomForward(video: "1.2.3.4:5", audioRTCP: "1.2.3.4:6")
        #expect(throws: RoomForwardError(field: "audioRTCP", value: "1.2.3.4:6", needsAudio: true)) { try noAudio.validate() }
    }

    @Test func theHostAndAdministratorsSeeItAndNobodyElse() throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        let olga = h.join("olga", .observer)
        h.clear()
        try h.administer(.setForward(forward))
        #expect(h.room.forward == forward)
        #expect(h.events(host) == [.forwardChanged(forward)])
        #expect(h.take(members[0]).isEmpty && h.take(olga).isEmpty, "the others are told nothing")
        #expect(h.room.snapshot(for: "host").forward == forward && h.room.administratorSnapshot.forward == forward)
        #expect(h.room.snapshot(for: "alice").forward == nil && h.room.snapshot(for: "olga").forward == nil)
        // The same again changes nothing and says nothing; a bad address changes nothing.
        try h.administer(.setForward(forward))
        #expect(h.take(host).isEmpty)
        #expect(throws: SessionRefusal.invalidParameters) { try h.administer(.setForward(RoomForward(video: "janus:5004"))) }
        #expect(h.room.forward == forward && h.take(host).isEmpty)
        try h.administer(.setForward(nil))
        #expect(h.room.forward == nil && h.events(host) == [.forwardChanged(nil)])
    }

    @Test func itGoesWithTheHostRoleAndOutlastsAReconnection() throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        try h.administer(.setForward(forward))
        h.clear()
        h.send(.transferHost(identity: "alice"), from: host)
        let aliceView = h.take(members[0]).compactMap { if case .joined(let snapshot) = $0 { snapshot } else { nil } }.last
        let bossView = h.take(host).compactMap { if case .joined(let snapshot) = $0 { snapshot } else { nil } }.last
        #expect(aliceView?.host == "alice" && aliceView?.forward == forward, "the new host is told where to forward")
        #expect(bossView?.host == "alice" && bossView?.forward == nil, "the old host's view loses it")
        // Set while the host is away, it reaches the host when it resumes.
        h.lose(members[0])
        try h.administer(.setForward(RoomForward(video: "10.0.0.9:6000")))
        let back = h.join("alice", .host)
        let resumed = h.take(back).compactMap { if case .joined(let snapshot) = $0 { snapshot } else { nil } }.last
        #expect(resumed?.forward == RoomForward(video: "10.0.0.9:6000"))
    }

    @Test func aClosedRoomTakesNoForward() throws {
        var h = RoomHarness()
        _ = h.meeting(participants: [])
        try h.administer(.close)
        #expect(throws: SessionRefusal.roomClosed) { try h.administer(.setForward(forward)) }
    }
}
