import ConferJobs
import ConferMedia
import ConferTestSupport
import Foundation
import GRDB
import Testing

/// One-to-one calls between separate `confer call` processes through a `confer serve`
/// process, over loopback on the wall clock with margins: every end result, two devices
/// of one user, a callee killed mid-call, and a server killed and restarted with its log.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CallProcessTests {
    func ended(_ process: ConferProcess) -> [String: Any]? { process.events.last { $0["event"] as? String == "ended" } }
    func result(_ process: ConferProcess) -> String? { ended(process)?["result"] as? String }

    /// Starts a callee and waits until it is signed in.
    func callee(_ server: TestServer, _ identity: String, device: String = "phone", _ arguments: [String] = []) async throws -> ConferProcess {
        let process = try server.member("call", token: try await server.callToken(identity), ["--device", device, "--events"] + arguments)
        #expect(await process.wait(upTo: 20) { $0.eventNames.contains("signedIn") }, "\(identity)/\(device): \(process.stderr)")
        return process
    }

    func log(_ server: TestServer, _ identity: String, _ arguments: [String] = []) async throws -> [[String: Any]] {
        let process = try server.member("calls", token: try await server.callToken(identity), ["--json", "--all"] + arguments)
        #expect(await process.exitStatus() == 0, "\(process.stderr)")
        return process.stdout.split(separator: "\n").flatMap { line -> [[String: Any]] in
            let page = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            return page?["calls"] as? [[String: Any]] ?? []
        }
    }

    @Test(.wallClockExclusive) func aVideoCallConnectsAndEachSideDecodesTheOther() async throws {
        let directory = NSTemporaryDirectory() + "confer-call-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["-o", "\(directory)/bob.ivf"])
        let alice = try server.member("call", token: try await server.callToken("alice"),
                                      ["--to", "bob", "--video", "--duration", "4", "-o", "\(directory)/alice.ivf", "--events",
                                       "--item", "topic=review"])
        #expect(await alice.exitStatus(timeout: 40) == 0, "alice: \(alice.stderr)")
        #expect(await bob.exitStatus(timeout: 10) == 0, "bob: \(bob.stderr)")
        for (name, process) in [("alice", alice), ("bob", bob)] {
            #expect(result(process) == "completed", "\(name): \(process.stdout)")
            #expect(process.eventNames.contains("media"))
        }
        // Alice (slot 1) sends the first palette colour, Bob (slot 2) the second: each side
        // decodes the other's pattern and never its own.
        for (name, path, theirs, mine) in [("alice", "alice.ivf", 1, 0), ("bob", "bob.ivf", 0, 1)] {
            let reader = try VideoFileReader(path: "\(directory)/\(path)")
            var frames: [VideoFrame] = []
            while let frame = try reader.next() { frames.append(frame) }
            #expect(frames.count >= 40, "\(name) decoded \(frames.count) frames in 4 s at 24 fps")
            let middle = try #require(frames.dropFirst(frames.count / 2).first)
            #expect(middle.width == 320 && middle.height == 180)
            #expect(MediaProcessTests().coverage(of: TestPalette.color(at: theirs), in: middle) > 0.05, "\(name) sees the other side")
            #expect(MediaProcessTests().coverage(of: TestPalette.color(at: mine), in: middle) < 0.005, "\(name) does not see itself")
        }
        let calls = try await log(server, "bob")
        #expect(calls.count == 1)
        let record = try #require(calls.first)
        #expect(record["result"] as? String == "completed")
        #expect(record["caller"] as? String == "alice" && record["callee"] as? String == "bob")
        #expect(record["acceptedDevice"] as? String == "phone")
        #expect(record["video"] as? Bool == true)
        #expect((record["customItems"] as? [String: String]) == ["topic": "review"])
        let started = try #require(record["started"] as? Int), connected = try #require(record["connected"] as? Int)
        let endedAt = try #require(record["ended"] as? Int)
        #expect(started <= connected && connected < endedAt)
        #expect(abs(Double(endedAt - connected) / 1000 - 4) < 1.5, "about the 4 s asked for")
        await server.stop()
    }

    /// Each side sends its own `--codec` and decodes the other's: H.264 one way, VP8 the
    /// other. (Both sides used to send and expect the other's codec, so a caller's H.264 or VP9
    /// to a callee left at VP8 decoded nothing either way and timed out a minute later.)
    @Test(.wallClockExclusive) func eachSideSendsItsOwnCodec() async throws {
        let directory = NSTemporaryDirectory() + "confer-call-codecs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["-o", "\(directory)/from-alice.h264"])
        let alice = try server.member("call", token: try await server.callToken("alice"),
                                      ["--to", "bob", "--video", "--codec", "h264", "--duration", "3", "-o", "\(directory)/from-bob.ivf", "--events"])
        #expect(await alice.exitStatus(timeout: 40) == 0, "alice: \(alice.stderr)")
        #expect(await bob.exitStatus(timeout: 10) == 0, "bob: \(bob.stderr)")
        for (name, process, theirs) in [("alice", alice, "vp8"), ("bob", bob, "h264")] {
            #expect(result(process) == "completed", "\(name): \(process.stdout)")
            let media = process.events.first { $0["event"] as? String == "media" }
            #expect(media?["codec"] as? String == theirs, "\(name) is told the other side's codec: \(String(describing: media))")
        }
        for (name, path, codec) in [("alice", "from-bob.ivf", "vp8"), ("bob", "from-alice.h264", "h264")] {
            let reader = try VideoFileReader(path: "\(directory)/\(path)")
            #expect(reader.info.codec == codec, "\(name) received \(reader.info.codec)")
            var frames = 0
            while try reader.next() != nil { frames += 1 }
            #expect(frames >= 30, "\(name) decoded \(frames) frames in 3 s at 24 fps")
        }
        await server.stop()
    }

    /// A callee behind a NAT announces the address it has inside (here a port where nothing
    /// answers), and its packets come from another. The caller moves to where they come from
    /// once they authenticate under the callee's keys, and challenges it there: the call
    /// connects, each side decodes the other, and the announced port gets only challenges.
    /// The caller binds its media to another address than the server's (--media-bind).
    @Test(.wallClockExclusive) func aCalleeBehindANATIsReachedWhereItsPacketsComeFrom() async throws {
        let inside = try CountingUDPSocket()
        defer { inside.close() }
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["--media-address", "127.0.0.1:\(inside.port)"])
        let alice = try server.member("call", token: try await server.callToken("alice"),
                                      ["--to", "bob", "--video", "--duration", "3", "--media-bind", "127.0.0.2", "--events"])
        #expect(await alice.exitStatus(timeout: 40) == 0, "alice: \(alice.stderr)")
        #expect(await bob.exitStatus(timeout: 10) == 0, "bob: \(bob.stderr)")
        let told = { (process: ConferProcess) in process.events.first { $0["event"] as? String == "media" }?["peer"] as? String }
        #expect(told(alice) == "127.0.0.1:\(inside.port)", "alice is told what bob announced")
        #expect(told(bob)?.hasPrefix("127.0.0.2:") == true, "bob is told where alice bound: \(String(describing: told(bob)))")
        for (name, process, moves) in [("alice", alice, 1 ... 3), ("bob", bob, 0 ... 0)] {
            let end = try #require(ended(process), "\(name): \(process.stdout)")
            #expect(end["result"] as? String == "completed")
            #expect((end["framesReceived"] as? Int ?? 0) >= 30, "\(name) decoded the other side for 3 s: \(end)")
            #expect(moves.contains(end["peerMoves"] as? Int ?? -1), "\(name) moved to where the other side's packets came from: \(end)")
        }
        let sizes = inside.datagramSizes()
        #expect(sizes.count <= 14 && sizes.allSatisfy { $0 <= 64 }, "nothing but challenges at the announced port: \(sizes)")
        await server.stop()
    }

    @Test func aDeclinedCallEndsOnBothSidesWithStatusFive() async throws {
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["--answer", "decline", "--answer-after", "0.5"])
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--events"])
        #expect(await alice.exitStatus() == 5)
        #expect(await bob.exitStatus() == 5)
        #expect(result(alice) == "declined" && result(bob) == "declined")
        #expect(try await log(server, "alice", ["--role", "caller", "--result", "declined"]).count == 1)
        #expect(try await log(server, "alice", ["--role", "callee"]).isEmpty)
        #expect(try await log(server, "alice", ["--with", "bob"]).count == 1)
        #expect(try await log(server, "alice", ["--with", "carol"]).isEmpty)
        await server.stop()
    }

    @Test func aCallAnsweredAndRunAtTheKeyboard() async throws {
        let server = try await TestServer()
        let bob = try server.member("call", token: try await server.callToken("bob"), ["--device", "phone", "--answer", "manual", "--commands", "--events"],
                                    typing: true)
        #expect(await bob.wait(upTo: 20) { $0.eventNames.contains("signedIn") }, "bob: \(bob.stderr)")
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--commands", "--events"], typing: true)
        func sees(_ process: ConferProcess, _ name: String, _ matches: @escaping ([String: Any]) -> Bool = { _ in true }) async -> Bool {
            await process.wait(upTo: 15) { $0.events.contains { $0["event"] as? String == name && matches($0) } }
        }
        #expect(await sees(bob, "incoming"))
        try await Task.sleep(for: .milliseconds(500))
        #expect(!alice.events.contains { $0["event"] as? String == "phase" && $0["phase"] as? String != "ringing" }, "it rings until bob types")

        bob.type("accept")
        for process in [alice, bob] { #expect(await sees(process, "phase", { $0["phase"] as? String == "connected" }), "\(process.stderr)") }
        bob.type("mic off")
        #expect(await sees(alice, "remoteSettings", { $0["audio"] as? Bool == false }))
        alice.type("set topic=review")
        #expect(await sees(bob, "customItems", { ($0["items"] as? [String: String])?["topic"] == "review" }))
        alice.type("frob")
        #expect(await sees(alice, "commandError", { $0["line"] as? String == "frob" }))
        bob.type("hangup")
        #expect(await alice.exitStatus(timeout: 10) == 0, "alice: \(alice.stderr)")
        #expect(await bob.exitStatus(timeout: 10) == 0, "bob: \(bob.stderr)")
        #expect(result(alice) == "completed" && result(bob) == "completed")
        #expect((ended(alice)?["record"] as? [String: Any])?["endedBy"] as? String == "bob")
        #expect((ended(alice)?["audioPacketsReceived"] as? Int ?? 0) > 0, "media ran once bob accepted at the keyboard")
        let typed = bob.events.filter { $0["event"] as? String == "command" }.compactMap { $0["command"] as? String }
        #expect(typed == ["accept", "mic", "hangup"])
        await server.stop()
    }

    @Test func aCallDeclinedAtTheKeyboard() async throws {
        let server = try await TestServer()
        let bob = try server.member("call", token: try await server.callToken("bob"), ["--answer", "manual", "--commands", "--events"], typing: true)
        #expect(await bob.wait(upTo: 20) { $0.eventNames.contains("signedIn") }, "bob: \(bob.stderr)")
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--events"])
        #expect(await bob.wait(upTo: 15) { $0.eventNames.contains("incoming") })
        bob.type("decline")
        #expect(await alice.exitStatus() == 5)
        #expect(await bob.exitStatus() == 5)
        #expect(result(alice) == "declined" && result(bob) == "declined")
        await server.stop()
    }

    @Test func anUnansweredCallEndsAtTheRingingTimeout() async throws {
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["--answer", "ignore"])
        let start = Date()
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--ringing-timeout", "2", "--events"])
        #expect(await alice.exitStatus() == 5)
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed > 2 && elapsed < 8, "rang \(elapsed) s for a 2 s timeout")
        #expect(result(alice) == "noAnswer" && result(bob) == "noAnswer")
        #expect(await bob.exitStatus() == 5)
        await server.stop()
    }

    @Test func theCallerHangingUpWhileItRingsCancels() async throws {
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["--answer", "ignore"])
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--cancel-after", "1", "--events"])
        #expect(await alice.exitStatus() == 5)
        #expect(await bob.exitStatus() == 5)
        #expect(result(alice) == "canceled" && result(bob) == "canceled")
        let record = try #require(try await log(server, "bob").first)
        #expect(record["endedBy"] as? String == "alice")
        await server.stop()
    }

    @Test func anAnsweredCallWhoseMediaNeverConnectsTimesOut() async throws {
        let server = try await TestServer()
        let bob = try await callee(server, "bob", ["--no-media"])
        let alice = try server.member("call", token: try await server.callToken("alice"),
                                      ["--to", "bob", "--connection-timeout", "2", "--no-media", "--events"])
        #expect(await alice.exitStatus() == 6)
        #expect(await bob.exitStatus() == 6)
        #expect(result(alice) == "timedOut" && result(bob) == "timedOut")
        let record = try #require(try await log(server, "alice").first)
        #expect(record["accepted"] != nil && record["connected"] == nil)
        await server.stop()
    }

    /// A camera file that is not there: the answer fails, and the callee says why.
    @Test(arguments: [(["--input", "/nonexistent-camera.y4m"], [String](), "/nonexistent-camera.y4m")])
    func anAnswerWhoseMediaCannotStartEndsAcceptFailed(callee calleeArguments: [String], caller: [String], reason: String) async throws {
        let server = try await TestServer()
        let bob = try await callee(server, "bob", calleeArguments)
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--video", "--events"] + caller)
        #expect(await alice.exitStatus(timeout: 30) == 6, "alice: \(alice.stderr)")
        #expect(result(alice) == "acceptFailed")
        #expect(await bob.exitStatus() != 0)
        #expect(bob.stderr.contains("this device's media could not run") && bob.stderr.contains(reason), "\(bob.stderr)")
        #expect((ended(bob)?["mediaError"] as? String)?.contains(reason) == true, "\(String(describing: ended(bob)))")
        let record = try #require(try await log(server, "alice").first)
        #expect(record["result"] as? String == "acceptFailed" && record["endedBy"] as? String == "bob")
        await server.stop()
    }

    /// The caller's codec comes with the ring, so a callee whose output cannot hold it (H.264
    /// into `.ivf`) declines before answering, says why and what to use, and fails (6); the
    /// caller sees a decline. Before the codec came with the ring this was an accept that failed.
    @Test func aCalleeWhoseOutputCannotHoldTheCallersCodecDeclinesWhileItRings() async throws {
        let server = try await TestServer()
        let output = NSTemporaryDirectory() + "confer-never-written-\(UInt32.random(in: 0 ... .max)).ivf"
        let bob = try await callee(server, "bob", ["-o", output])
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--video", "--codec", "h264", "--events"])
        #expect(await bob.exitStatus(timeout: 30) == 6, "bob: \(bob.stderr)")
        #expect(await alice.exitStatus(timeout: 10) == 5, "alice: \(alice.stderr)")
        #expect(result(alice) == "declined" && result(bob) == "declined")
        let incoming = try #require(bob.events.first { $0["event"] as? String == "incoming" })
        #expect(incoming["codec"] as? String == "h264")
        #expect(bob.stderr.contains("declining: the caller sends h264, which -o \(output) cannot hold"), "\(bob.stderr)")
        #expect(bob.stderr.contains("FILE.h264"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let record = try #require(try await log(server, "alice").first)
        #expect(record["result"] as? String == "declined" && record["endedBy"] as? String == "bob" && record["accepted"] == nil)
        await server.stop()
    }

    /// Answering by hand, the same: `accept` is answered at the keyboard with the reason, the
    /// call keeps ringing, and the person declines.
    @Test func anAcceptTypedForACodecTheOutputCannotHoldIsAnsweredAtTheKeyboard() async throws {
        let server = try await TestServer()
        let output = NSTemporaryDirectory() + "confer-never-written-\(UInt32.random(in: 0 ... .max)).ivf"
        let bob = try server.member("call", token: try await server.callToken("bob"),
                                    ["--device", "phone", "--answer", "manual", "--commands", "--events", "-o", output], typing: true)
        #expect(await bob.wait(upTo: 20) { $0.eventNames.contains("signedIn") }, "bob: \(bob.stderr)")
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--video", "--codec", "h264", "--events"])
        #expect(await bob.wait(upTo: 15) { $0.eventNames.contains("incoming") }, "bob: \(bob.stderr)")
        // What it says goes to stderr, a pipe of its own that may lag the event on stdout.
        #expect(await bob.wait(upTo: 5) { $0.stderr.contains("this device cannot accept: the caller sends h264") }, "\(bob.stderr)")
        bob.type("accept")
        #expect(await bob.wait(upTo: 15) { $0.events.contains { $0["event"] as? String == "commandError" && $0["line"] as? String == "accept" } })
        #expect(await bob.wait(upTo: 5) { $0.stderr.contains("confer: accept: the caller sends h264, which -o \(output) cannot hold") },
                "\(bob.stderr)")
        #expect(!alice.events.contains { $0["event"] as? String == "phase" && $0["phase"] as? String != "ringing" }, "it still rings")
        bob.type("decline")
        #expect(await alice.exitStatus(timeout: 15) == 5, "alice: \(alice.stderr)")
        #expect(await bob.exitStatus(timeout: 10) == 5, "bob: \(bob.stderr)")
        #expect(result(alice) == "declined" && result(bob) == "declined")
        let typed = bob.events.filter { $0["event"] as? String == "command" }.compactMap { $0["command"] as? String }
        #expect(typed == ["decline"], "the accept was never sent")
        await server.stop()
    }

    @Test func twoDevicesRingAndTheOneThatAnswersWins() async throws {
        let server = try await TestServer()
        let phone = try await callee(server, "bob", device: "phone", ["--answer", "ignore"])
        let laptop = try await callee(server, "bob", device: "laptop", ["--answer-after", "1"])
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--duration", "2", "--events"])
        #expect(await phone.exitStatus(timeout: 20) == 5, "phone: \(phone.stderr)")
        #expect(result(phone) == "otherDeviceAccepted")
        #expect(await alice.exitStatus(timeout: 40) == 0, "alice: \(alice.stderr)")
        #expect(await laptop.exitStatus(timeout: 10) == 0, "laptop: \(laptop.stderr)")
        #expect(phone.eventNames.contains("incoming") && laptop.eventNames.contains("incoming"), "both devices rang")
        let record = try #require(try await log(server, "alice").first)
        #expect(record["acceptedDevice"] as? String == "laptop")
        #expect(record["result"] as? String == "completed")
        await server.stop()
    }

    /// A user in an answered call is busy: a second caller is refused at once (status 3)
    /// and the dial is logged as failed; with `serve --ring-through-calls` it rings instead.
    @Test(arguments: [false, true])
    func aUserInACallIsBusyUnlessTheServerRingsThroughCalls(ringThrough: Bool) async throws {
        let server = try await TestServer(arguments: ringThrough ? ["--ring-through-calls"] : [])
        let bob = try await callee(server, "bob")
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--duration", "8", "--events"])
        #expect(await bob.wait(upTo: 20) { process in
            process.events.contains { $0["event"] as? String == "phase" && $0["phase"] as? String == "accepted" }
        }, "bob: \(bob.stderr)")
        let carol = try server.member("call", token: try await server.callToken("carol"),
                                      ["--to", "bob", "--events"] + (ringThrough ? ["--cancel-after", "1"] : []))
        if ringThrough {
            #expect(await carol.exitStatus(timeout: 20) != 3, "carol: \(carol.stderr)")
            #expect(result(carol) == "canceled", "rang until carol hung up: \(carol.stderr)")
        } else {
            #expect(await carol.exitStatus(timeout: 20) == 3, "carol: \(carol.stderr)")
            #expect(carol.stderr.contains("calleeBusy"), "\(carol.stderr)")
            let record = try #require(try await log(server, "carol").first)
            #expect(record["result"] as? String == "dialFailed" && record["failure"] as? String == "calleeBusy", "\(record)")
            let lines = try server.member("calls", token: try await server.callToken("carol"), [])
            #expect(await lines.exitStatus() == 0)
            #expect(lines.stdout.contains("→ bob  voice  dialFailed (calleeBusy)"), "the log says why: \(lines.stdout)")
        }
        #expect(await alice.exitStatus(timeout: 40) == 0, "the first call goes on: \(alice.stderr)")
        #expect(result(alice) == "completed")
        bob.signal(SIGTERM)
        _ = await bob.exitStatus(timeout: 10)
        await server.stop()
    }

    @Test(.wallClockExclusive) func aCalleeKilledMidCallIsLostOnTheCallersSideWithinTheWindow() async throws {
        let window = 2.0
        let server = try await TestServer(arguments: ["--call-reconnect-window", "\(window)"])
        let bob = try await callee(server, "bob")
        let alice = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--events"])
        #expect(await alice.wait(upTo: 30) { $0.events.contains { $0["phase"] as? String == "connected" } }, "alice: \(alice.stderr)")
        bob.signal(SIGKILL)
        let killed = Date()
        #expect(await alice.wait(upTo: 15) { $0.eventNames.contains("ended") })
        let elapsed = Date().timeIntervalSince(killed)
        #expect(elapsed < window + 1, "the caller heard of the loss \(elapsed) s after the kill, window \(window) s")
        #expect(elapsed > window - 0.5, "not before the window closed: \(elapsed) s")
        #expect(alice.eventNames.contains("reconnecting"))
        #expect(result(alice) == "connectionLost")
        #expect(await alice.exitStatus() == 6)
        await server.stop()
    }

    @Test func theLogSurvivesTheServerKilledAndRestarted() async throws {
        let directory = NSTemporaryDirectory() + "confer-calllog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = "\(directory)/calls.sqlite"
        let server = try await TestServer(arguments: ["--db", database])

        let decliner = try await callee(server, "bob", ["--answer", "decline"])
        let first = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--events"])
        #expect(await first.exitStatus() == 5)
        #expect(await decliner.exitStatus() == 5)
        let ignorer = try await callee(server, "bob", ["--answer", "ignore"])
        let second = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--ringing-timeout", "1", "--events"])
        #expect(await second.exitStatus() == 5)
        #expect(await ignorer.exitStatus() == 5)
        let third = try server.member("call", token: try await server.callToken("alice"), ["--to", "nobody", "--events"])
        #expect(await third.exitStatus() == 3, "an unknown callee is refused")
        #expect(third.stderr.contains("calleeUnknown"))
        // A call still ringing when the server dies.
        let ringing = try await callee(server, "bob", ["--answer", "ignore"])
        let fourth = try server.member("call", token: try await server.callToken("alice"), ["--to", "bob", "--events"])
        #expect(await ringing.wait(upTo: 20) { $0.eventNames.contains("incoming") })

        server.process.signal(SIGKILL)
        _ = await server.process.exitStatus()
        fourth.signal(SIGKILL)
        ringing.signal(SIGKILL)

        let restarted = try await TestServer(arguments: ["--db", database], secret: server.secret)
        let calls = try await log(restarted, "alice")
        let results = calls.compactMap { $0["result"] as? String }
        #expect(results == ["connectionLost", "dialFailed", "noAnswer", "declined"], "newest first: \(calls)")
        #expect(calls.first?["ended"] != nil, "the interrupted call is closed at restart")
        #expect(try await log(restarted, "bob").count == 3, "bob's side: the calls that rang him")
        let offline = try restarted.member("call", token: try await restarted.callToken("alice"), ["--to", "bob"])
        #expect(await offline.exitStatus() == 3)
        #expect(offline.stderr.contains("calleeOffline"), "bob is known from the log: \(offline.stderr)")
        await restarted.stop()
    }

    @Test func aMissingOrLockedDatabaseIsAClearErrorAtStart() async throws {
        let missing = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", String(repeating: "s", count: 32),
                                         "--db", "/nonexistent-\(UUID().uuidString)/calls.sqlite"])
        #expect(await missing.exitStatus(timeout: 20) != 0)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")

        let directory = NSTemporaryDirectory() + "confer-locked-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/calls.sqlite"
        // Another process's lock, held across accesses on purpose.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: configuration)
        try await holder.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; CREATE TABLE other (x); BEGIN EXCLUSIVE; INSERT INTO other VALUES (1)")
        }
        let locked = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", String(repeating: "s", count: 32), "--db", path])
        #expect(await locked.exitStatus(timeout: 20) != 0)
        #expect(locked.stderr.contains("locked"), "\(locked.stderr)")
        try await holder.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
    }
}
