import ConferSession
import Testing

/// Every way a call can end, and the rules around it, in virtual time.
@Suite struct CallSwitchboardTests {
    @Test func aConnectedCallHungUpEndsCompletedWithItsDuration() throws {
        var h = CallHarness()
        let alice = h.signIn("alice", "laptop")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice, items: ["topic": "standup"])
        #expect(h.incoming(bob) == [id])
        #expect(h.view(id, at: alice)?.phase == .ringing)
        h.advance(.seconds(3))
        h.connect(id, caller: alice, callee: bob)
        #expect(h.view(id, at: alice)?.phase == .connected)
        #expect(h.view(id, at: bob)?.phase == .connected)
        h.advance(.seconds(42))
        h.send(.end(call: id, lost: false), from: bob)
        let record = try #require(h.log[id])
        #expect(record.result == .completed)
        #expect(record.endedBy == "bob")
        #expect(record.acceptedDevice == "phone")
        #expect(record.callerDevice == "laptop")
        #expect(record.duration == .seconds(42))
        #expect(record.customItems == ["topic": "standup"])
        #expect(h.view(id, at: alice)?.result == .completed)
        #expect(h.board.activeCalls == 0)
    }

    @Test func bothSidesGetTheOtherSidesMediaAndMirroredKeys() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.send(.media(call: id, CallHarness.media(port: 40000)), from: alice)
        #expect(h.view(id, at: alice)?.media == nil, "no keys before the answer")
        h.send(.accept(call: id), from: bob)
        #expect(h.view(id, at: bob)?.media == nil, "the callee has not described its media yet")
        h.send(.media(call: id, CallHarness.media(port: 40002)), from: bob)
        let a = try #require(h.view(id, at: alice)?.media)
        let b = try #require(h.view(id, at: bob)?.media)
        #expect(a.peer.port == 40002 && b.peer.port == 40000)
        #expect(a.slot == 1 && b.slot == 2)
        #expect(a.sendKey == b.receiveKey && a.receiveKey == b.sendKey)
        #expect(a.sendKey != a.receiveKey && a.sendKey.count == MediaGrant.keyLength)
    }

    /// What crosses a call's end on the way is dropped, not refused: the caller's media
    /// description after a quick decline, a hang-up from both sides at once, a mute. Only an
    /// answer is told it came too late.
    @Test func whatCrossesTheEndIsDroppedQuietly() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.send(.decline(call: id), from: bob)
        #expect(h.log[id]?.result == .declined)
        let before = h.inbox[alice]?.count ?? 0
        h.send(.media(call: id, CallHarness.media(port: 40000)), from: alice)
        h.send(.settings(call: id, CallSettings(audio: false, video: false)), from: alice)
        h.send(.end(call: id, lost: false), from: alice)
        #expect(h.refusals(alice).isEmpty && (h.inbox[alice]?.count ?? 0) == before, "nothing comes back: \(h.inbox[alice] ?? [])")
        #expect(h.log[id]?.result == .declined && h.log[id]?.endedBy == "bob", "the end stands")
        h.send(.decline(call: id), from: bob)
        #expect(h.refusals(bob) == [.callAnswered])
        // A call id nobody ended is still unknown.
        h.send(.media(call: "no-such-call", CallHarness.media(port: 40000)), from: alice)
        #expect(h.refusals(alice) == [.unknownCall])
    }

    @Test func theCallerHangingUpWhileRingingCancels() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.advance(.seconds(5))
        h.send(.end(call: id, lost: false), from: alice)
        #expect(h.log[id]?.result == .canceled)
        #expect(h.log[id]?.endedBy == "alice")
        #expect(h.view(id, at: bob)?.phase == .ended, "the ringing device stops ringing")
        h.send(.accept(call: id), from: bob)
        #expect(h.refusals(bob) == [.callAnswered], "an accept after the cancel is refused")
        #expect(h.log[id]?.result == .canceled)
    }

    @Test func theCalleeDeclining() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.send(.decline(call: id), from: bob)
        #expect(h.log[id]?.result == .declined)
        #expect(h.log[id]?.endedBy == "bob")
        #expect(h.view(id, at: alice)?.result == .declined)
    }

    @Test func ringingRunsOutAtTheTimeoutTheDialAskedFor() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice, ringing: 5)
        h.advance(.milliseconds(4999))
        #expect(h.log[id]?.result == nil)
        h.advance(.milliseconds(1))
        #expect(h.log[id]?.result == .noAnswer)
        #expect(h.log[id]?.endedBy == nil)
        #expect(h.view(id, at: bob)?.result == .noAnswer)
    }

    @Test func ringingRunsOutAtTheServersTimeoutByDefault() throws {
        var rules = CallHarness.quietRules
        rules.ringingTimeout = .seconds(60)
        var h = CallHarness(rules: rules)
        let alice = h.signIn("alice")
        h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.advance(.seconds(59))
        #expect(h.log[id]?.result == nil)
        h.advance(.seconds(1))
        #expect(h.log[id]?.result == .noAnswer)
    }

    @Test func anAnsweredCallWhoseMediaNeverConnectsTimesOut() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice, connection: 8)
        h.send(.accept(call: id), from: bob)
        h.send(.mediaConnected(call: id), from: alice)
        h.advance(.milliseconds(7999))
        #expect(h.log[id]?.result == nil)
        h.advance(.milliseconds(1))
        #expect(h.log[id]?.result == .timedOut)
        #expect(h.log[id]?.connected == nil)
    }

    @Test func aSideGoneLongerThanTheWindowLosesTheCall() throws {
        var rules = CallHarness.quietRules
        rules.reconnectWindow = .seconds(10)
        var h = CallHarness(rules: rules)
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.connect(id, caller: alice, callee: bob)
        h.lose(bob)
        #expect(h.view(id, at: alice)?.reconnecting == ["bob"])
        h.advance(.milliseconds(9999))
        #expect(h.log[id]?.result == nil)
        h.advance(.milliseconds(1))
        #expect(h.log[id]?.result == .connectionLost)
        #expect(h.view(id, at: alice)?.result == .connectionLost)
    }

    @Test func aSideBackWithinTheWindowReconnectsAndTheCallGoesOn() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.connect(id, caller: alice, callee: bob)
        h.lose(alice)
        h.advance(.seconds(4))
        let back = h.signIn("alice")
        #expect(h.view(id, at: bob)?.reconnecting == [])
        #expect(h.view(id, at: back)?.phase == .connected)
        #expect(h.view(id, at: back)?.media != nil, "the resumed side gets its media set-up again")
        h.advance(.seconds(30))
        #expect(h.log[id]?.result == nil)
        h.send(.end(call: id, lost: false), from: back)
        #expect(h.log[id]?.result == .completed)
    }

    @Test func aSideReportingItsMediaLostEndsTheCallSo() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.connect(id, caller: alice, callee: bob)
        h.send(.end(call: id, lost: true), from: alice)
        #expect(h.log[id]?.result == .connectionLost)
    }

    @Test func dialingAnUnknownOrOfflineUserFailsAndIsLogged() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        #expect(h.dial("nobody", from: alice) == nil)
        let carol = h.signIn("carol")
        h.lose(carol)
        #expect(h.dial("carol", from: alice) == nil)
        #expect(h.refusals(alice) == [.calleeUnknown, .calleeOffline])
        let results = h.log.values.sorted { $0.callee < $1.callee }.map { ($0.callee, $0.result, $0.failure) }
        #expect(results.map(\.0) == ["carol", "nobody"])
        #expect(results.map(\.1) == [.dialFailed, .dialFailed])
        #expect(results.map(\.2) == [.calleeOffline, .calleeUnknown])
    }

    /// A user in an answered call is busy: a dial to it fails at once and is logged, until
    /// that call ends. Calls that only ring make no one busy, and the user may still call out.
    @Test func aUserInAnAnsweredCallIsBusy() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let carol = h.signIn("carol")
        let first = try h.place("bob", from: alice)
        let ringing = try h.place("bob", from: carol)
        #expect(h.incoming(bob) == [first, ringing], "two calls ringing at once: no one is busy yet")
        h.send(.accept(call: first), from: bob)
        #expect(h.view(ringing, at: carol)?.phase == .ringing, "the other call rings on")
        #expect(h.dial("bob", from: carol) == nil)
        #expect(h.refusals(carol) == [.calleeBusy])
        #expect(h.dial("alice", from: carol) == nil, "the caller of an answered call is busy too")
        #expect(h.refusals(carol) == [.calleeBusy, .calleeBusy])
        let failed = h.log.values.filter { $0.failure == .calleeBusy }
        #expect(failed.count == 2 && failed.allSatisfy { $0.result == .dialFailed && $0.ended == $0.started })
        #expect(Set(failed.map(\.callee)) == ["alice", "bob"])
        #expect(h.board.activeCalls == 2, "the answered call and the one still ringing; the busy dials hold nothing")
        _ = try h.place("carol", from: bob)
        h.send(.end(call: first, lost: false), from: alice)
        let again = try h.place("bob", from: carol)
        #expect(h.incoming(bob).last == again, "free again once the call ended")
    }

    @Test func withRingingThroughCallsABusyUserRings() throws {
        var rules = CallHarness.quietRules
        rules.ringsThroughCalls = true
        var h = CallHarness(rules: rules)
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let carol = h.signIn("carol")
        let first = try h.place("bob", from: alice)
        h.send(.accept(call: first), from: bob)
        let waiting = try h.place("bob", from: carol)
        #expect(h.incoming(bob) == [first, waiting])
        #expect(h.refusals(carol).isEmpty)
    }

    @Test func usersRememberedFromTheLogAreOfflineNotUnknown() {
        var h = CallHarness()
        h.board.rememberUsers(["carol"])
        let alice = h.signIn("alice")
        #expect(h.dial("carol", from: alice) == nil)
        #expect(h.refusals(alice) == [.calleeOffline])
    }

    @Test func selfCallsAndMalformedDialsAreRefusedUnlogged() {
        var h = CallHarness()
        let alice = h.signIn("alice")
        h.signIn("bob")
        #expect(h.dial("alice", from: alice) == nil)
        #expect(h.dial("", from: alice) == nil)
        #expect(h.dial("bob", from: alice, ringing: -1) == nil)
        #expect(h.dial("bob", from: alice, connection: .infinity) == nil)
        #expect(h.dial("bob", from: alice, ringing: 100_000) == nil)
        #expect(h.dial("bob", from: alice, items: ["": "x"]) == nil)
        #expect(h.dial("bob", from: alice, items: Dictionary(uniqueKeysWithValues: (0 ..< 33).map { ("k\($0)", "v") })) == nil)
        #expect(h.refusals(alice) == [.selfCall] + Array(repeating: .invalidParameters, count: 6))
        #expect(h.log.isEmpty)
        #expect(h.board.activeCalls == 0)
    }

    @Test func everyDeviceRingsAndTheFirstToAnswerWins() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let phone = h.signIn("bob", "phone")
        let laptop = h.signIn("bob", "laptop")
        let id = try h.place("bob", from: alice)
        #expect(h.incoming(phone) == [id] && h.incoming(laptop) == [id])
        let tablet = h.signIn("bob", "tablet")
        #expect(h.incoming(tablet) == [id], "a device signing in while the call rings rings too")
        h.send(.accept(call: id), from: laptop)
        #expect(h.view(id, at: phone)?.result == .otherDeviceAccepted)
        #expect(h.view(id, at: tablet)?.result == .otherDeviceAccepted)
        #expect(h.view(id, at: laptop)?.phase == .accepted)
        h.send(.accept(call: id), from: phone)
        #expect(h.refusals(phone) == [.callAnswered], "a second accept is refused")
        let before = h.inbox[phone]?.count ?? 0
        h.connect(id, caller: alice, callee: laptop)
        #expect(h.inbox[phone]?.count == before + 0, "a device that lost the answer hears nothing more")
        #expect(h.log[id]?.acceptedDevice == "laptop")
    }

    @Test func anotherUserCannotAnswerEndOrTouchACall() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        h.signIn("bob")
        let mallory = h.signIn("mallory")
        let id = try h.place("bob", from: alice)
        for message: CallClientMessage in [.accept(call: id), .decline(call: id), .end(call: id, lost: false),
                                           .setItems(call: id, items: ["x": "y"]), .mediaConnected(call: id),
                                           .media(call: id, CallHarness.media(port: 1))] {
            h.send(message, from: mallory)
        }
        #expect(h.refusals(mallory) == Array(repeating: .unknownCall, count: 6))
        #expect(h.log[id]?.result == nil)
        #expect(h.log[id]?.customItems == [:])
        h.send(.accept(call: id), from: alice)
        #expect(h.refusals(alice) == [.unknownCall], "the caller cannot answer its own call")
        h.send(.accept(call: "no-such-call"), from: alice)
        #expect(h.refusals(alice) == [.unknownCall, .unknownCall])
    }

    @Test func settingsAndCustomItemsReachTheOtherSide() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice, items: ["a": "1"])
        h.connect(id, caller: alice, callee: bob)
        h.send(.settings(call: id, CallSettings(audio: false, video: true)), from: bob)
        #expect(h.view(id, at: alice)?.calleeSettings == CallSettings(audio: false, video: true))
        h.send(.setItems(call: id, items: ["b": "2", "a": "3"]), from: alice)
        #expect(h.view(id, at: bob)?.record.customItems == ["a": "3", "b": "2"])
        h.send(.deleteItems(call: id, keys: ["a"]), from: bob)
        #expect(h.view(id, at: alice)?.record.customItems == ["b": "2"])
        #expect(h.log[id]?.customItems == ["b": "2"], "the log keeps the items as they stand")
    }

    @Test func theAnsweringDeviceFailingToStartEndsAcceptFailed() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.send(.acceptFailed(call: id), from: bob)
        #expect(h.refusals(bob) == [.wrongCallState], "not before answering")
        h.send(.accept(call: id), from: bob)
        h.send(.acceptFailed(call: id), from: bob)
        #expect(h.log[id]?.result == .acceptFailed)
    }

    @Test func aSecondConnectionAsTheSameDeviceReplacesTheFirst() {
        var h = CallHarness()
        let first = h.signIn("bob", "phone")
        let second = h.signIn("bob", "phone")
        #expect(h.ended[first] == .duplicateIdentity)
        #expect(h.ended[second] == nil)
        #expect(h.board.onlineDevices == 1)
        h.lose(first)
        #expect(h.board.onlineDevices == 1, "the replaced connection closing does not sign the new one out")
    }

    @Test func aSilentDeviceIsSignedOutAndItsCallLostAfterTheWindow() throws {
        var rules = CallHarness.quietRules
        rules.keepaliveTimeout = .seconds(30)
        rules.reconnectWindow = .seconds(10)
        var h = CallHarness(rules: rules)
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.connect(id, caller: alice, callee: bob)
        for _ in 0 ..< 4 {
            h.advance(.seconds(10))
            h.send(.ping(sent: nil), from: alice)
        }
        #expect(h.ended[bob] == .timedOut)
        #expect(h.ended[alice] == nil)
        h.advance(.seconds(10))
        #expect(h.log[id]?.result == .connectionLost)
    }

    @Test func endedCallsAreRememberedInABoundedRing() throws {
        var rules = CallHarness.quietRules
        rules.rememberedEndedCalls = 4
        var h = CallHarness(rules: rules)
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        var ids: [String] = []
        for _ in 0 ..< 6 {
            let id = try h.place("bob", from: alice)
            h.send(.end(call: id, lost: false), from: alice)
            ids.append(id)
        }
        #expect(Set(ids).count == 6)
        h.send(.accept(call: ids[5]), from: bob)
        h.send(.accept(call: ids[0]), from: bob)
        #expect(h.refusals(bob) == [.callAnswered, .unknownCall], "the oldest has been forgotten")
    }

    @Test func shutdownEndsEveryCallAndConnection() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let bob = h.signIn("bob")
        let id = try h.place("bob", from: alice)
        h.apply(h.board.shutDown(at: h.now))
        #expect(h.log[id]?.result == .connectionLost)
        #expect(h.ended[alice] == .serverShutdown && h.ended[bob] == .serverShutdown)
    }

    /// The codec the caller sends comes with the ring, to every device of the call, so a
    /// device can tell before answering whether it can take it; a voice call has none.
    @Test func theCallersCodecRingsWithTheCall() throws {
        var h = CallHarness()
        let alice = h.signIn("alice")
        let phone = h.signIn("bob", "phone")
        let laptop = h.signIn("bob", "laptop")
        let dialed = h.dial("bob", from: alice, codec: "h264")
        let id = try #require(dialed)
        #expect(h.incomingCalls(phone).map(\.callerCodec) == ["h264"] && h.incomingCalls(laptop).map(\.callerCodec) == ["h264"])
        #expect(h.view(id, at: alice)?.callerCodec == "h264")
        h.connect(id, caller: alice, callee: laptop)
        #expect(h.view(id, at: laptop)?.callerCodec == "h264", "and it stays with the call")

        let carol = h.signIn("carol")
        let voiceCall = h.dial("carol", from: alice, video: false, codec: "vp8")
        let voice = try #require(voiceCall)
        #expect(h.incomingCalls(carol).map(\.id) == [voice] && h.incomingCalls(carol).first?.callerCodec == nil, "a voice call sends no video")
        let dave = h.signIn("dave")
        let unsaidCall = h.dial("dave", from: alice)
        let unsaid = try #require(unsaidCall)
        #expect(h.incomingCalls(dave).map(\.id) == [unsaid] && h.incomingCalls(dave).first?.callerCodec == nil, "a caller that does not say")
    }

    @Test func aDialWithACodecNoOneSendsIsRefused() {
        var h = CallHarness()
        let alice = h.signIn("alice")
        _ = h.signIn("bob")
        for codec in ["av1", "", "VP8", String(repeating: "v", count: 300)] {
            #expect(h.dial("bob", from: alice, codec: codec) == nil, "\(codec)")
        }
        #expect(h.refusals(alice) == Array(repeating: .invalidParameters, count: 4))
        #expect(h.board.activeCalls == 0)
    }

    /// A signed-in device's token is renewed halfway through its lifetime, with its grant,
    /// so a phone waiting for calls longer than its token can sign in again after a drop;
    /// one signed out gets none, nor one with no token, nor with renewal off.
    @Test func aSignedInDevicesTokenIsRenewed() throws {
        var h = CallHarness()
        let first = TokenClaims(callsFor: "alice", name: "Alice", notBefore: h.now, lifetime: .seconds(20))
        let phone = h.signIn("alice", token: first)
        let tablet = h.signIn("alice", "tablet", token: TokenClaims(callsFor: "alice", notBefore: h.now, lifetime: .seconds(20)))
        let untokened = h.signIn("bob")
        h.advance(.seconds(8))
        h.lose(tablet)
        h.advance(.seconds(47))
        let renewals = h.refreshed[phone] ?? []
        #expect(renewals.count == 5, "at 10, 20, 30, 40 and 50 s: \(renewals.map(\.notBefore))")
        for claims in renewals {
            #expect(claims.identity == "alice" && claims.name == "Alice" && claims.room == TokenClaims.callScope)
            #expect(claims.expires - claims.notBefore == 20 && claims.issuedAt == claims.notBefore)
        }
        #expect(h.refreshed[tablet] == nil && h.refreshed[untokened] == nil)

        // The renewal signs the phone in again after the first token's exp.
        let last = try #require(renewals.last)
        // What the server's check at sign-in says (the switchboard trusts the server's verify).
        #expect(throws: SessionRefusal.tokenExpired) { try first.check(room: TokenClaims.callScope, at: h.now) }
        #expect(throws: Never.self) { try last.check(room: TokenClaims.callScope, at: h.now) }
        h.lose(phone)
        let again = h.signIn("alice", token: last)
        #expect(h.inbox[again]?.contains { if case .welcome = $0 { true } else { false } } == true)

        var rules = CallHarness.quietRules
        rules.refreshesTokens = false
        var off = CallHarness(rules: rules)
        let kept = off.signIn("carol", token: TokenClaims(callsFor: "carol", notBefore: off.now, lifetime: .seconds(20)))
        off.advance(.seconds(30))
        #expect(off.refreshed[kept] == nil)
    }

    @Test func callMessagesRoundTripThroughTheCodec() throws {
        let info = CallInfo(record: CallRecord(id: "c1", caller: "a", callerDevice: "d", callee: "b", video: true,
                                               started: SessionTime(milliseconds: 5)),
                            phase: .ringing, result: nil, callerSettings: CallSettings(video: true), calleeSettings: CallSettings(video: true))
        for message: CallServerMessage in [.incoming(info), .dialed(ref: 3, call: info), .refused(action: "dial", ref: 3, call: nil, reason: .selfCall),
                                           .log(ref: 1, page: CallLogPage(calls: [info.record], next: "5:c1")),
                                           .tokenRefreshed(token: "eyJ.eyJ.sig")] {
            #expect(try SignalCodec.decodeCallServer(SignalCodec.encode(message)) == message)
        }
        for message: CallClientMessage in [.hello(token: "t", device: "phone"), .end(call: "c1", lost: true),
                                           .dial(ref: 4, callee: "b", video: true, customItems: nil, ringingTimeout: nil, connectionTimeout: nil, codec: "vp9"),
                                           .log(ref: 2, CallLogQuery(role: .callee, results: [.completed, .noAnswer], limit: 50, cursor: nil))] {
            #expect(try SignalCodec.decodeCallClient(SignalCodec.encode(message)) == message)
        }
        // A dial from a client that does not say its codec still reads, with none.
        let unsaid = try SignalCodec.decodeCallClient(Array(#"{"v":1,"m":{"dial":{"ref":1,"callee":"b","video":true}}}"#.utf8))
        #expect(unsaid == .dial(ref: 1, callee: "b", video: true, customItems: nil, ringingTimeout: nil, connectionTimeout: nil, codec: nil))
        #expect(throws: SignalDecodeError.unknownType("ring")) { try SignalCodec.decodeCallClient(Array(#"{"v":1,"m":{"ring":{}}}"#.utf8)) }
        #expect(throws: SignalDecodeError.invalidFields("accept")) { try SignalCodec.decodeCallClient(Array(#"{"v":1,"m":{"accept":{"x":1}}}"#.utf8)) }
    }

    @Test func logCursorsReadBackAndRefuseJunk() {
        let record = CallRecord(id: "abc", caller: "a", callerDevice: "d", callee: "b", video: false, started: SessionTime(milliseconds: 77))
        let cursor = CallLogCursor(after: record)
        #expect(CallLogCursor(text: cursor.text) == cursor)
        #expect(CallLogCursor(text: "x:abc") == nil)
        #expect(CallLogCursor(text: "12") == nil)
        #expect(CallLogCursor(text: "12:") == nil)
        #expect(CallLogQuery(limit: 0).isValid == false)
        #expect(CallLogQuery(limit: 101).isValid == false)
        #expect(CallLogQuery(cursor: "junk").isValid == false)
        #expect(CallLogQuery(limit: 100, cursor: "12:ab").isValid)
    }
}
