import ConferSession
import Testing

@Suite struct SignalCodecTests {
    static let clientMessages: [ClientMessage] = [
        .join(token: "t", room: "r"), .join(token: "t", room: "r", devices: DeviceStates(microphone: false, camera: true)), .ping(sent: 5), .ping(sent: nil), .leave, .cancelJoin, .approve(identity: "a"),
        .decline(identity: "a"), .kick(identity: "a"), .closeRoom, .transferHost(identity: "a"),
        .setDevice(device: .camera, on: false), .turnOff(identity: "a", device: .microphone),
        .requestDevice(identity: "a", device: .camera), .answerDeviceRequest(id: 3, accept: true), .applyForParticipant,
        .answerApplication(identity: "a", approve: false), .send(to: ["a", "b"], kind: "k", text: "héllo \"x\""),
        .send(to: nil, kind: nil, text: "hi"), .announceMedia(MediaDescription(host: "127.0.0.1", port: 4000, codec: "vp8", width: 640, height: 360, frameRate: 24)), .report(ConnectInfo()),
    ]

    @Test(arguments: clientMessages)
    func clientMessagesRoundTrip(_ message: ClientMessage) throws {
        let bytes = SignalCodec.encode(message)
        #expect(try SignalCodec.decodeClient(bytes) == message)
        #expect(ClientMessage.typeNames.contains(message.typeName))
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"\(message.typeName)\""))
    }

    @Test func serverMessagesRoundTrip() throws {
        var h = RoomHarness()
        let (host, _) = h.meeting(participants: ["alice"])
        let messages: [ServerMessage] = [
            .welcome(identity: "a", role: .host, room: RoomInfo(id: "r"), keepaliveSeconds: 10, serverTime: SessionTime(milliseconds: 5)),
            .joined(h.room.snapshot(for: "host")), .refused(action: "kick", reason: .notHost), .disconnected(reason: .kicked),
            .pong(sent: 1), .event(.memberLeft(identity: "a", reason: .timedOut)), .event(.roomClosed),
            .event(.forwardChanged(RoomForward(video: "10.0.0.5:5004", videoRTCP: "10.0.0.5:5005", audio: "[::1]:5006"))),
            .event(.forwardChanged(nil)), .tokenRefreshed(token: "eyJ.eyJ.sig"),
        ]
        for message in messages {
            #expect(try SignalCodec.decodeServer(SignalCodec.encode(message)) == message)
            #expect(ServerMessage.typeNames.contains(message.typeName))
        }
        _ = host
    }

    /// A welcome names the server's STUN port when it has one; a welcome without it (from a
    /// server before STUN) still reads, with none.
    @Test func welcomesCarryTheSTUNPortOrNone() throws {
        let time = SessionTime(milliseconds: 5)
        let meeting = ServerMessage.welcome(identity: "a", role: .host, room: RoomInfo(id: "r"), keepaliveSeconds: 10, serverTime: time, stunPort: 3478)
        let call = CallServerMessage.welcome(identity: "a", device: "phone", keepaliveSeconds: 10, serverTime: time, stunPort: 3478)
        #expect(try SignalCodec.decodeServer(SignalCodec.encode(meeting)) == meeting)
        #expect(try SignalCodec.decodeCallServer(SignalCodec.encode(call)) == call)
        #expect(String(decoding: SignalCodec.encode(meeting), as: UTF8.self).contains(#""stunPort":3478"#))
        let older = String(decoding: SignalCodec.encode(ServerMessage.welcome(identity: "a", role: .host, room: RoomInfo(id: "r"),
                                                                              keepaliveSeconds: 10, serverTime: time)), as: UTF8.self)
        #expect(!older.contains("stunPort"), "no port, no key: what a server before STUN sent")
        guard case .welcome(_, _, _, _, _, let port) = try SignalCodec.decodeServer(Array(older.utf8)) else {
            Issue.record("not a welcome: \(older)")
            return
        }
        #expect(port == nil)
    }

    @Test func mediaDescriptionsCarryAlternatesAndOnesWithoutStillRead() throws {
        let lan = MediaDescription.Address(host: "10.1.0.3", port: 50_000)
        let description = MediaDescription(host: "198.51.100.1", port: 61_000, alternates: [lan], codec: "vp8", width: 640, height: 360, frameRate: 24)
        #expect(description.isPlausible && description.addresses == [MediaDescription.Address(host: "198.51.100.1", port: 61_000), lan])
        #expect(try SignalCodec.decodeClient(SignalCodec.encode(ClientMessage.announceMedia(description))) == .announceMedia(description))
        let call = CallClientMessage.media(call: "c", description)
        #expect(try SignalCodec.decodeCallClient(SignalCodec.encode(call)) == call)
        // What a device before alternates sends: no key, and it reads as none.
        let older = #"{"v":1,"m":{"announceMedia":{"_0":{"host":"127.0.0.1","port":4000,"codec":"vp8","width":640,"height":360,"frameRate":24}}}}"#
        guard case .announceMedia(let read) = try SignalCodec.decodeClient(Array(older.utf8)) else {
            Issue.record("not an announcement: \(older)")
            return
        }
        #expect(read.alternates == nil && read.isPlausible && read.addresses.count == 1)
        #expect(!String(decoding: SignalCodec.encode(ClientMessage.announceMedia(read)), as: UTF8.self).contains("alternates"))
        // Each alternate is challenged: a description names few, and each must be an address.
        var many = description
        many.alternates = Array(repeating: lan, count: MediaDescription.maximumAlternates + 1)
        #expect(!many.isPlausible)
        many.alternates = Array(repeating: lan, count: MediaDescription.maximumAlternates)
        #expect(many.isPlausible)
        for bad in [MediaDescription.Address(host: "", port: 1), .init(host: "h", port: 0), .init(host: "h", port: 65_536),
                    .init(host: String(repeating: "a", count: MediaDescription.maximumHostBytes + 1), port: 1)] {
            many.alternates = [bad]
            #expect(!many.isPlausible, "\(bad)")
        }
    }

    @Test func badInputIsATypedError() {
        func error(_ text: String) -> SignalDecodeError? {
            do {
                _ = try SignalCodec.decodeClient(Array(text.utf8))
                return nil
            } catch { return error }
        }
        #expect(error("not json") == .malformed)
        #expect(error("[]") == .malformed)
        #expect(error(#"{"m":{"leave":{}}}"#) == .malformed, "no version")
        #expect(error(#"{"v":2,"m":{"leave":{}}}"#) == .unsupportedVersion(2))
        #expect(error(#"{"v":1,"m":{"teleport":{}}}"#) == .unknownType("teleport"))
        #expect(error(#"{"v":1,"m":{"kick":{"who":"a"}}}"#) == .invalidFields("kick"))
        #expect(error(#"{"v":1,"m":{"kick":{"identity":"a"},"leave":{}}}"#) == .malformed)
        #expect(error(#"{"v":1,"m":{"leave":{}}}"#) == nil)
        // A join without devices (every client before them) still reads, as both on.
        #expect((try? SignalCodec.decodeClient(Array(#"{"v":1,"m":{"join":{"token":"t","room":"r"}}}"#.utf8))) == .join(token: "t", room: "r"))
        #expect(error(#"{"v":1,"m":{"join":{"token":"t","room":"r","devices":{"camera":"off"}}}}"#) == .invalidFields("join"))
        let huge = #"{"v":1,"m":{"send":{"text":""# + String(repeating: "x", count: 70_000) + #""}}}"#
        #expect(error(huge) == .tooLarge(huge.utf8.count))
        #expect(SignalDecodeError.tooLarge(1).refusal == .messageTooLarge)
        #expect(SignalDecodeError.unknownType("x").refusal == .unknownMessageType)
    }
}

@Suite struct TokenClaimsTests {
    let issued = SessionTime(milliseconds: 1_700_000_000_500)

    @Test func checksTimesAtWholeSecondsAndTheRoom() {
        let claims = TokenClaims(identity: "a", room: "r", role: .participant, notBefore: issued, lifetime: .seconds(60))
        #expect(claims.notBefore == 1_700_000_000 && claims.expires == 1_700_000_060)
        #expect(throws: Never.self) { try claims.check(room: "r", at: issued) }
        #expect(throws: SessionRefusal.tokenNotYetValid) { try claims.check(room: "r", at: SessionTime(milliseconds: 1_699_999_999_999)) }
        #expect(throws: Never.self) { try claims.check(room: "r", at: SessionTime(milliseconds: 1_700_000_059_999)) }
        #expect(throws: SessionRefusal.tokenExpired) { try claims.check(room: "r", at: SessionTime(milliseconds: 1_700_000_060_000)) }
        #expect(throws: SessionRefusal.wrongRoom) { try claims.check(room: "other", at: issued) }
        let empty = TokenClaims(identity: "", name: "", room: "r", role: .host, notBefore: 0, expires: .max)
        #expect(throws: SessionRefusal.invalidToken) { try empty.check(room: nil, at: issued) }
    }

    @Test func closeCodesRoundTrip() {
        for reason in DisconnectReason.allCases {
            #expect((4000 ..< 5000).contains(reason.closeCode))
            #expect(DisconnectReason(closeCode: reason.closeCode) == reason)
        }
        #expect(DisconnectReason(closeCode: 1000) == nil)
    }
}
