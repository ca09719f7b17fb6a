import ConferSession
import Testing

@Suite struct RoomHostActionTests {
    /// Every host action, sent by a participant, is refused with `notHost` and changes nothing.
    @Test(arguments: [
        ClientMessage.approve(identity: "x"), .decline(identity: "x"), .kick(identity: "bob"), .closeRoom,
        .transferHost(identity: "bob"), .turnOff(identity: "bob", device: .camera), .requestDevice(identity: "bob", device: .camera),
        .answerApplication(identity: "bob", approve: true),
    ])
    func hostActionsAreRefusedForParticipants(_ message: ClientMessage) {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        let before = h.room.members
        h.send(message, from: members[0])
        #expect(h.refusals(members[0]) == [.notHost])
        #expect(h.room.members == before)
        #expect(h.take(host).isEmpty && h.take(members[1]).isEmpty)
        #expect(h.ended.isEmpty && !h.room.isClosed)
    }

    @Test func aWaitingRequesterCannotAct() {
        var h = RoomHarness()
        h.join("host", .host)
        let eve = h.join("eve", .participant)
        h.clear()
        h.send(.kick(identity: "host"), from: eve)
        h.send(.send(to: nil, kind: nil, text: "hi"), from: eve)
        #expect(h.refusals(eve) == [.notAMember, .notAMember])
        #expect(h.room.members.map(\.identity) == ["host"])
    }

    @Test func kickRemovesTheMemberAndTellsEveryone() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        h.send(.kick(identity: "alice"), from: host)
        #expect(h.ended[members[0]] == .kicked)
        #expect(h.events(members[1]) == [.memberLeft(identity: "alice", reason: .kicked)])
        #expect(h.events(host) == [.memberLeft(identity: "alice", reason: .kicked)])
        #expect(h.room.members.map(\.identity) == ["host", "bob"])
        h.send(.kick(identity: "host"), from: host)
        #expect(h.refusals(host) == [.notToSelf])
        h.send(.kick(identity: "nobody"), from: host)
        #expect(h.refusals(host) == [.unknownMember])
    }

    @Test func closingTheRoomEndsEveryoneWithThatReason() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        let waiting = h.join("late", .participant)
        h.send(.closeRoom, from: host)
        for address in [host, waiting] + members { #expect(h.ended[address] == .roomClosed) }
        #expect(h.discarded && h.room.isClosed)
        let after = h.join("after", .participant)
        #expect(h.refusals(after) == [.roomClosed])
    }

    @Test func theHostTurnsADeviceOff() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.turnOff(identity: "alice", device: .microphone), from: host)
        let events = h.events(members[0])
        #expect(events.first == .deviceTurnedOff(identity: "alice", device: .microphone))
        #expect(h.room.members[1].devices == DeviceStates(microphone: false, camera: true))
        #expect(h.events(host).contains { if case .memberUpdated(let m) = $0 { !m.devices.microphone } else { false } })
    }

    @Test(arguments: [true, false])
    func aDeviceRequestIsAnsweredByTheMember(_ accept: Bool) throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.turnOff(identity: "alice", device: .camera), from: host)
        h.clear()
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        guard case .deviceRequested(let request) = try #require(h.events(members[0]).first) else { Issue.record("no request"); return }
        // Only the member asked may answer it.
        h.send(.answerDeviceRequest(id: request.id, accept: true), from: host)
        #expect(h.refusals(host) == [.unknownRequest])
        h.send(.answerDeviceRequest(id: request.id, accept: accept), from: members[0])
        let outcome: DeviceRequestOutcome = accept ? .accepted : .rejected
        #expect(h.events(host).first == .deviceRequestEnded(id: request.id, identity: "alice", device: .camera, outcome: outcome))
        #expect(h.room.members[1].devices.camera == accept)
        #expect(h.room.openDeviceRequests.isEmpty)
    }

    /// A device is asked for once until the member answers or the request expires; another
    /// device, or another member, may be asked meanwhile. One that is on is not asked for.
    @Test func aDeviceIsAskedForOnceUntilAnswered() throws {
        var rules = RoomRules()
        rules.deviceRequestTimeout = .seconds(5)
        var h = RoomHarness(rules: rules)
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        #expect(h.refusals(host) == [.deviceAlreadyOn])
        #expect(h.events(members[0]).isEmpty && h.room.openDeviceRequests.isEmpty)
        for device in [MediaDevice.camera, .microphone] { h.send(.setDevice(device: device, on: false), from: members[0]) }
        h.send(.setDevice(device: .camera, on: false), from: members[1])
        h.clear()
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        h.send(.requestDevice(identity: "host", device: .camera), from: host)
        #expect(h.refusals(host) == [.alreadyRequested, .notToSelf])
        #expect(h.events(members[0]).count == 1)
        h.send(.requestDevice(identity: "alice", device: .microphone), from: host)
        h.send(.requestDevice(identity: "bob", device: .camera), from: host)
        #expect(h.refusals(host).isEmpty)
        #expect(h.room.openDeviceRequests.map(\.id) == [1, 2, 3])

        // Answered, the camera may be asked for again.
        h.send(.answerDeviceRequest(id: 1, accept: false), from: members[0])
        h.clear()
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        #expect(h.refusals(host).isEmpty)
        #expect(h.room.openDeviceRequests.map(\.id) == [2, 3, 4])
        // Expired, likewise.
        h.advance(.seconds(5))
        #expect(h.room.openDeviceRequests.isEmpty)
        h.clear()
        h.send(.requestDevice(identity: "alice", device: .microphone), from: host)
        #expect(h.refusals(host).isEmpty)
        #expect(h.room.openDeviceRequests.map(\.id) == [5])
    }

    /// A member who turns the device on by itself meets the request: it ends accepted, for
    /// the member and the host, and the other device's request stays open.
    @Test func aDeviceTurnedOnByTheMemberEndsItsRequestAccepted() {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        for device in [MediaDevice.camera, .microphone] { h.send(.turnOff(identity: "alice", device: device), from: host) }
        h.send(.requestDevice(identity: "alice", device: .camera), from: host)
        h.send(.requestDevice(identity: "alice", device: .microphone), from: host)
        h.clear()
        h.send(.setDevice(device: .camera, on: true), from: members[0])
        let ended = RoomEvent.deviceRequestEnded(id: 1, identity: "alice", device: .camera, outcome: .accepted)
        #expect(h.events(members[0]).contains(ended))
        #expect(h.events(host).contains(ended))
        #expect(h.room.openDeviceRequests.map(\.id) == [2])
        // Turning a device off, or on again, asks nothing more of the room.
        h.send(.setDevice(device: .camera, on: false), from: members[0])
        h.send(.setDevice(device: .camera, on: true), from: members[0])
        #expect(h.room.openDeviceRequests.map(\.id) == [2])
        #expect(!h.events(host).contains { if case .deviceRequestEnded = $0 { true } else { false } })
    }

    @Test func aDeviceRequestExpires() {
        var rules = RoomRules()
        rules.deviceRequestTimeout = .seconds(5)
        var h = RoomHarness(rules: rules)
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.turnOff(identity: "alice", device: .microphone), from: host)
        h.send(.requestDevice(identity: "alice", device: .microphone), from: host)
        h.clear()
        h.advance(.milliseconds(4_999))
        #expect(h.room.openDeviceRequests.count == 1)
        h.advance(.milliseconds(1))
        #expect(h.room.openDeviceRequests.isEmpty)
        #expect(h.events(host) == [.deviceRequestEnded(id: 1, identity: "alice", device: .microphone, outcome: .expired)])
        #expect(h.events(members[0]) == [.deviceRequestEnded(id: 1, identity: "alice", device: .microphone, outcome: .expired)])
    }

    @Test func theHostHandsItsRoleToAParticipant() throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        h.send(.transferHost(identity: "alice"), from: host)
        #expect(h.room.host == "alice")
        let old = try #require(h.room.members.first { $0.identity == "host" })
        #expect(old.role == .participant && old.slot == 3)
        guard case .joined(let view) = h.take(members[0]).last else { Issue.record("new host not resynchronized"); return }
        #expect(view.media.keys.sorted() == ["bob", "host"])
        #expect(h.events(members[1]).contains(.hostChanged(identity: "alice")))
        // The old host can no longer act as one.
        h.send(.kick(identity: "bob"), from: host)
        #expect(h.refusals(host).contains(.notHost))
    }

    @Test func anObserverAppliesAndTheHostApproves() {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let olga = h.join("olga", .observer)
        h.clear()
        h.send(.applyForParticipant, from: olga)
        #expect(h.events(host).contains { if case .applicationReceived(let r) = $0 { r.identity == "olga" } else { false } })
        h.send(.answerApplication(identity: "olga", approve: true), from: host)
        #expect(h.room.members.first { $0.identity == "olga" }?.role == .participant)
        #expect(h.events(olga).contains(.joinRequestEnded(identity: "olga", outcome: .approved)))
        h.send(.applyForParticipant, from: olga)
        #expect(h.refusals(olga) == [.wrongRole])
    }

    @Test func anApplicationPastTheMemberLimitIsRefusedWithThatReason() {
        var rules = RoomRules()
        rules.memberLimit = 1
        var h = RoomHarness(rules: rules)
        let host = h.join("host", .host)
        let olga = h.join("olga", .observer)
        h.send(.applyForParticipant, from: olga)
        h.clear()
        h.send(.answerApplication(identity: "olga", approve: true), from: host)
        #expect(h.events(olga) == [.joinRequestEnded(identity: "olga", outcome: .roomFull)])
        #expect(h.room.members.first { $0.identity == "olga" }?.role == .observer)
    }

    @Test func administratorsKickCloseSayAndChangeRoles() throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice", "bob"])
        try h.administer(.setRole(identity: "bob", role: .observer))
        #expect(h.room.members[2].role == .observer)
        try h.administer(.send(to: nil, text: "maintenance at noon"))
        #expect(h.events(members[0]).contains { if case .message(let m) = $0 { m.from == nil && m.text == "maintenance at noon" } else { false } })
        #expect(throws: SessionRefusal.unknownMember) { try h.administer(.kick(identity: "zed")) }
        try h.administer(.kick(identity: "alice"))
        #expect(h.ended[members[0]] == .kicked)
        try h.administer(.close)
        #expect(h.ended[host] == .roomClosed)
        #expect(throws: SessionRefusal.roomClosed) { try h.administer(.close) }
    }

    /// A member made an observer may no longer send, so the host's open request for its
    /// camera is withdrawn (for both), and an answer that would turn the camera on is refused.
    @Test func aMemberMadeAnObserverCannotAnswerTheHostsRequest() throws {
        var (h, host, alice, request) = try Self.aliceAsked(for: .camera)
        try h.administer(.setRole(identity: "alice", role: .observer))
        let withdrawn = RoomEvent.deviceRequestEnded(id: request.id, identity: "alice", device: .camera, outcome: .withdrawn)
        #expect(h.events(alice).contains(withdrawn))
        #expect(h.events(host).contains(withdrawn))
        #expect(h.room.openDeviceRequests.isEmpty)
        h.send(.answerDeviceRequest(id: request.id, accept: true), from: alice)
        #expect(h.refusals(alice) == [.unknownRequest])
        let member = try #require(h.room.members.first { $0.identity == "alice" })
        #expect(member.role == .observer && !member.devices.camera && !member.devices.microphone)
    }

    /// An observer an administrator makes a participant has its application answered by
    /// that: it ends approved (for it and the host), and the host has nothing left to answer.
    @Test func anObserverAnAdministratorPromotesHasItsApplicationApproved() throws {
        var h = RoomHarness()
        let host = h.join("host", .host)
        let olga = h.join("olga", .observer)
        h.send(.applyForParticipant, from: olga)
        h.clear()
        try h.administer(.setRole(identity: "olga", role: .participant))
        let approved = RoomEvent.joinRequestEnded(identity: "olga", outcome: .approved)
        #expect(h.events(olga).contains(approved))
        #expect(h.events(host).contains(approved))
        #expect(h.room.pendingApplications.isEmpty)
        h.send(.answerApplication(identity: "olga", approve: false), from: host)
        #expect(h.refusals(host) == [.unknownRequest])
        #expect(h.room.members.first { $0.identity == "olga" }?.role == .participant)
    }

    /// A member who becomes the host is no longer asked by a host: a request for its device
    /// is withdrawn, whether the host hands its role on or an administrator gives it.
    @Test(arguments: [false, true])
    func aMemberWhoBecomesTheHostHasItsRequestWithdrawn(byAdministrator: Bool) throws {
        var (h, host, alice, request) = try Self.aliceAsked(for: .microphone)
        if byAdministrator {
            try h.administer(.setRole(identity: "alice", role: .host))
        } else {
            h.send(.transferHost(identity: "alice"), from: host)
        }
        #expect(h.room.host == "alice")
        #expect(h.room.openDeviceRequests.isEmpty)
        #expect(h.events(alice).contains(.deviceRequestEnded(id: request.id, identity: "alice", device: .microphone, outcome: .withdrawn)))
        h.send(.answerDeviceRequest(id: request.id, accept: true), from: alice)
        #expect(h.refusals(alice) == [.unknownRequest])
    }

    /// With no host in the room, the member an administrator makes host has its open request
    /// withdrawn too.
    @Test func aMemberMadeHostOfAnEmptySeatHasItsRequestWithdrawn() throws {
        var (h, host, alice, request) = try Self.aliceAsked(for: .camera)
        h.send(.leave, from: host)
        #expect(h.room.host == nil && h.room.openDeviceRequests == [request])
        h.clear()
        try h.administer(.setRole(identity: "alice", role: .host))
        #expect(h.room.host == "alice" && h.room.openDeviceRequests.isEmpty)
        #expect(h.events(alice).contains(.deviceRequestEnded(id: request.id, identity: "alice", device: .camera, outcome: .withdrawn)))
    }

    /// The host role goes only to a member who is there: to one whose connection dropped,
    /// the host's hand-over and the administrator's are refused until it is back.
    @Test func theHostRoleGoesOnlyToAMemberWhoIsThere() throws {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.lose(members[0])
        h.send(.transferHost(identity: "alice"), from: host)
        #expect(h.refusals(host) == [.memberOffline])
        #expect(throws: SessionRefusal.memberOffline) { try h.administer(.setRole(identity: "alice", role: .host)) }
        #expect(h.room.host == "host")
        h.join("alice", .participant)
        h.send(.transferHost(identity: "alice"), from: host)
        #expect(h.room.host == "alice")
    }

    /// A meeting with alice, whose `device` the host turned off and has asked her to turn on
    /// again; inboxes cleared.
    private static func aliceAsked(for device: MediaDevice) throws
        -> (RoomHarness, host: SessionAddress, alice: SessionAddress, request: DeviceRequest) {
        var h = RoomHarness()
        let (host, members) = h.meeting(participants: ["alice"])
        h.send(.turnOff(identity: "alice", device: device), from: host)
        h.send(.requestDevice(identity: "alice", device: device), from: host)
        let request = try #require(h.room.openDeviceRequests.first)
        h.clear()
        return (h, host, members[0], request)
    }
}

/// Each side's figures of what the far end got, filled from the far end's own reports.
@Suite struct RoomRemoteFiguresTests {
    @Test func theHostsReceptionFillsEachParticipantsAndTheirsFillTheHosts() throws {
        var h = RoomHarness()
        let host = h.join("boss", .host)
        let alice = h.join("alice", .participant)
        h.send(.approve(identity: "alice"), from: host)
        let bob = h.join("bob", .participant)
        h.send(.approve(identity: "bob"), from: host)
        var aliceInfo = ConnectInfo()
        aliceInfo.bytesReceived = 1000
        aliceInfo.packetsLost = 3
        h.send(.report(aliceInfo), from: alice)
        var bobInfo = ConnectInfo()
        bobInfo.bytesReceived = 500
        bobInfo.packetsLost = 1
        h.send(.report(bobInfo), from: bob)
        var hostInfo = ConnectInfo()
        hostInfo.receivedFrom = ["alice": .init(bytes: 7000, packetsLost: 2), "bob": .init(bytes: 9000, packetsLost: 0)]
        h.send(.report(hostInfo), from: host)
        let members = h.room.members
        let boss = try #require(members.first { $0.identity == "boss" }?.connectInfo)
        #expect(boss.remoteBytesReceived == 1500, "what the participants received of the composite")
        #expect(boss.remotePacketsLost == 4)
        #expect(members.first { $0.identity == "alice" }?.connectInfo?.remoteBytesReceived == 7000)
        #expect(members.first { $0.identity == "bob" }?.connectInfo?.remoteBytesReceived == 9000)
        // A participant's next report keeps what the host said until the host says more.
        aliceInfo.bytesReceived = 2000
        h.send(.report(aliceInfo), from: alice)
        #expect(h.room.members.first { $0.identity == "alice" }?.connectInfo?.remoteBytesReceived == 7000)
        #expect(h.room.members.first { $0.identity == "boss" }?.connectInfo?.remoteBytesReceived == 2500)
    }
}
