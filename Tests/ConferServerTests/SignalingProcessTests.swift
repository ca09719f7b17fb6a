import ConferTestSupport
import Foundation
import Testing

/// Meetings between separate `confer` processes over loopback, on the wall clock with margins.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct SignalingProcessTests {
    @Test func aHostApprovesTwoAndDeclinesOne() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "alice,carol", "--duration", "8", "--events"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"), ["--no-media", "--duration", "3", "--events", "--say", "hello from alice"])
        let bob = try server.member("join", token: try await server.token("bob"), ["--no-media", "--duration", "3", "--events"])
        let carol = try server.member("join", token: try await server.token("carol"), ["--no-media", "--duration", "3", "--events"])

        #expect(await bob.exitStatus() == 3, "a declined join exits with 3")
        #expect(bob.stderr.contains("declined"))
        #expect(!bob.eventNames.contains("joined"))
        #expect(await alice.exitStatus() == 0, "alice: \(alice.stderr)")
        #expect(await carol.exitStatus() == 0, "carol: \(carol.stderr)")
        for member in [alice, carol] {
            let joined = try #require(member.events.first { $0["event"] as? String == "joined" })
            #expect(joined["host"] as? String == "boss")
        }
        for member in [alice, host] {
            #expect(member.events.contains { $0["event"] as? String == "message" && ($0["data"] as? [String: Any])?["text"] as? String == "hello from alice" })
        }
        #expect(await host.exitStatus() == 0, "host: \(host.stderr)")
        let requested = host.events.filter { $0["event"] as? String == "joinRequested" }.count
        #expect(requested == 3)
        let outcomes = host.events.filter { $0["event"] as? String == "joinRequestEnded" }
            .compactMap { event in (event["identity"] as? String).map { "\($0):\(event["outcome"] as? String ?? "")" } }.sorted()
        #expect(outcomes == ["alice:approved", "bob:declined", "carol:approved"])
        let left = host.events.filter { $0["event"] as? String == "memberLeft" }.compactMap { $0["identity"] as? String }.sorted()
        #expect(left == ["alice", "carol"])
        await server.stop()
    }

    /// `--json`: the report on stdout, one JSON document, and no human summary on stderr; a
    /// declined member's too, with the exit status that says so.
    @Test func jsonPrintsTheReportOnStdoutForHostAndMember() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "alice", "--json", "--size", "320x180", "--fps", "15"])
        #expect(await host.wait(upTo: 20) { $0.stderr.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"), ["--json", "--duration", "2.5", "--camera-size", "160x90"])
        let bob = try server.member("join", token: try await server.token("bob"), ["--json", "--no-media", "--duration", "1"])
        #expect(await alice.exitStatus() == 0, "alice: \(alice.stderr)")
        #expect(await bob.exitStatus() == 3, "declined")
        host.signal(SIGINT)
        #expect(await host.exitStatus() == 0, "host: \(host.stderr)")
        func report(_ process: ConferProcess) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(process.stdout.utf8)) as? [String: Any], "one JSON document: \(process.stdout)")
        }
        let aliceReport = try report(alice)
        #expect(aliceReport["identity"] as? String == "alice" && aliceReport["admitted"] as? Bool == true)
        let media = try #require(aliceReport["media"] as? [String: Any])
        #expect((media["framesReceived"] as? Int ?? 0) >= 10, "alice decoded the composite: \(media)")
        let bobReport = try report(bob)
        #expect(bobReport["admitted"] as? Bool == false && bobReport["endReason"] as? String == "declined")
        let hostReport = try report(host)
        #expect(hostReport["approved"] as? [String] == ["alice"] && hostReport["declined"] as? [String] == ["bob"])
        for process in [alice, bob, host] {
            #expect(!process.stderr.contains("members at the end"), "no human summary with --json: \(process.stderr)")
        }
        await server.stop()
    }

    @Test func aKickEndsTheMemberWithStatusFourAndClosingEndsEveryone() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--no-media", "--approve", "all", "--events"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let alicesToken = try await server.token("alice")
        let alice = try server.member("join", token: alicesToken, ["--no-media", "--events"])
        let bob = try server.member("join", token: try await server.token("bob", role: "observer"), ["--no-media", "--events"])
        for member in [alice, bob] { #expect(await member.wait(upTo: 20) { $0.eventNames.contains("joined") }) }
        // For people: an observer's devices are not "on" or "off" but absent.
        let table = try await server.rooms(["show", "room"])
        let rows = Dictionary(table.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            .filter { $0.count >= 5 }.map { ($0[0], Array($0[1 ... 4])) }, uniquingKeysWith: { first, _ in first })
        #expect(rows["bob"] == ["observer", "yes", "-", "-"] && rows["alice"] == ["participant", "yes", "on", "on"], "\(table.output)")

        let kick = try await server.rooms(["kick", "room", "alice"])
        #expect(kick.status == 0, "\(kick.output)")
        #expect(await alice.exitStatus(timeout: 5) == 4)
        #expect(alice.stderr.contains("kicked"))
        #expect(bob.isRunning, "the others go on")
        #expect(await bob.wait(upTo: 5) { $0.events.contains { $0["event"] as? String == "memberLeft" && $0["reason"] as? String == "kicked" } })

        let shown = try await server.rooms(["show", "room", "--json"])
        let snapshot = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
        let identities = (snapshot["members"] as? [[String: Any]])?.compactMap { $0["identity"] as? String }
        #expect(identities == ["boss", "bob"])

        // Kicked, alice cannot come straight back with the token she holds: refused (status 3)
        // with the reason, and the host, who approves all, is asked nothing.
        let back = try server.member("join", token: alicesToken, ["--no-media", "--events"])
        #expect(await back.exitStatus(timeout: 10) == 3)
        #expect(back.stderr.contains("kicked") && back.stderr.contains("minted since"), "\(back.stderr)")
        // A token minted after the kick's second admits her again, through the host's approval.
        try await Task.sleep(for: .milliseconds(1100))
        let readmitted = try server.member("join", token: try await server.token("alice"), ["--no-media", "--events"])
        #expect(await readmitted.wait(upTo: 20) { $0.eventNames.contains("joined") }, "\(readmitted.stderr)")
        #expect(host.events.filter { $0["event"] as? String == "joinRequested" }.count == 2, "her first join and this one")

        let close = try await server.rooms(["close", "room"])
        #expect(close.status == 0)
        #expect(await bob.exitStatus(timeout: 5) == 4)
        #expect(await host.exitStatus(timeout: 5) == 4)
        #expect(await readmitted.exitStatus(timeout: 5) == 4)
        #expect(bob.stderr.contains("roomClosed") && host.stderr.contains("roomClosed"))
        let listed = try await server.rooms(["list", "--json"])
        #expect(listed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        await server.stop()
    }

    @Test func aHostAndAMemberRunTheMeetingFromTheirKeyboards() async throws {
        let server = try await TestServer()
        let report = NSTemporaryDirectory() + "confer-keyboard-host-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--no-media", "--approve", "manual", "--commands", "--events", "--report", report], typing: true)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"), ["--no-media", "--commands", "--events"], typing: true)
        let carol = try server.member("join", token: try await server.token("carol"), ["--no-media", "--events"])
        func event(_ process: ConferProcess, _ name: String, _ matches: @escaping ([String: Any]) -> Bool = { _ in true }) async -> Bool {
            await process.wait(upTo: 10) { $0.events.contains { $0["event"] as? String == name && matches($0) } }
        }
        func requested(_ identity: String) -> ([String: Any]) -> Bool {
            { (($0["data"] as? [String: Any])?["identity"] as? String) == identity }
        }
        func alicesDevice(_ device: String, on: Bool) -> ([String: Any]) -> Bool {
            {
                guard let member = $0["data"] as? [String: Any], member["identity"] as? String == "alice" else { return false }
                return (member["devices"] as? [String: Any])?[device] as? Bool == on
            }
        }

        // --approve manual: the requests wait for the person at the host's keyboard.
        #expect(await event(host, "joinRequested", requested("alice")))
        #expect(await event(host, "joinRequested", requested("carol")))
        try await Task.sleep(for: .milliseconds(300))
        #expect(!alice.eventNames.contains("joined") && carol.isRunning, "nobody is let in before the host says so")
        host.type("approve alice")
        host.type("decline carol")
        #expect(await carol.exitStatus(timeout: 10) == 3)
        #expect(await event(alice, "joined"), "alice: \(alice.stderr)")

        // The host turns alice's microphone off; alice turns her camera off, and says yes when asked to turn it on.
        host.type("mute alice mic")
        #expect(await event(alice, "deviceTurnedOff", { $0["identity"] as? String == "alice" && $0["device"] as? String == "microphone" }))
        #expect(await event(host, "memberUpdated", alicesDevice("microphone", on: false)))
        alice.type("camera off")
        #expect(await event(host, "memberUpdated", alicesDevice("camera", on: false)))
        host.type("ask alice camera")
        host.type("ask alice camera")
        #expect(await event(alice, "deviceRequested"))
        // The host sees its open request, and asking again while it is open is refused: one prompt.
        #expect(await event(host, "deviceRequested", { ($0["data"] as? [String: Any])?["identity"] as? String == "alice" }))
        #expect(await event(host, "refused", { $0["action"] as? String == "requestDevice" && $0["reason"] as? String == "alreadyRequested" }))
        // Typed twice, as a person does when nothing seems to happen: the second is answered at
        // the keyboard, not sent for the server to refuse.
        alice.type("accept")
        alice.type("accept")
        #expect(await event(host, "deviceRequestEnded", { $0["identity"] as? String == "alice" && $0["outcome"] as? String == "accepted" }))
        #expect(await event(host, "memberUpdated", alicesDevice("camera", on: true)))
        #expect(await event(alice, "commandError", { $0["line"] as? String == "accept" && [
            "you have answered the host already", "no request from the host is waiting"].contains($0["error"] as? String ?? "") }))

        // What her role does not allow, the server refuses; what is no command, the console answers.
        alice.type("kick boss")
        #expect(await event(alice, "refused", { $0["action"] as? String == "kick" && $0["reason"] as? String == "notHost" }))
        alice.type("frob")
        #expect(await event(alice, "commandError", { $0["line"] as? String == "frob" }))
        // Its words go to stderr, a pipe of its own that may lag the event on stdout.
        #expect(await alice.wait(upTo: 5) { $0.stderr.contains("unknown command 'frob'") }, "\(alice.stderr)")
        alice.type("say hello from the keyboard")
        #expect(await event(host, "message", { ($0["data"] as? [String: Any])?["text"] as? String == "hello from the keyboard" }))

        // The host hands the room over, and the new host closes it: her own doing ends her with 0, the others with 4.
        host.type("transfer alice")
        #expect(await event(alice, "hostChanged", { $0["identity"] as? String == "alice" }))
        // The old host is sent its view as a member: no longer the host's requests and keys.
        #expect(await event(host, "joined", { $0["host"] as? String == "alice" && ($0["waiting"] as? [String])?.isEmpty == true }))
        alice.type("close")
        #expect(await alice.exitStatus(timeout: 10) == 0, "alice: \(alice.stderr)")
        #expect(await host.exitStatus(timeout: 10) == 4)
        #expect(host.stderr.contains("roomClosed"))
        // The host's report lists the answers it typed, and the role it ended with.
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(written["approved"] as? [String] == ["alice"] && written["declined"] as? [String] == ["carol"], "\(written)")
        #expect(written["role"] as? String == "participant", "boss handed the room to alice")
        let typed = alice.events.filter { $0["event"] as? String == "command" }.compactMap { $0["command"] as? String }
        #expect(typed == ["camera", "accept", "kick", "say", "close"], "what alice typed and was sent")
        #expect(!alice.events.contains { $0["event"] as? String == "refused" && $0["action"] as? String == "answerDeviceRequest" })
        await server.stop()
    }

    @Test func leaveTypedEndsTheSessionAndTheEndOfInputDoesNot() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--no-media", "--commands", "--events"],
                                     typing: true)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let alice = try server.member("join", token: try await server.token("alice"), ["--no-media", "--commands", "--events"], typing: true)
        #expect(await alice.wait(upTo: 20) { $0.eventNames.contains("joined") })
        // A script piped in ends; the member stays until its duration, Ctrl-C or `leave`.
        alice.endInput()
        try await Task.sleep(for: .seconds(1))
        #expect(alice.isRunning)
        host.type("leave")
        #expect(await host.exitStatus(timeout: 10) == 0, "host: \(host.stderr)")
        #expect(await alice.wait(upTo: 10) { $0.events.contains { $0["event"] as? String == "memberLeft" && $0["identity"] as? String == "boss" } })
        #expect(alice.isRunning)
        alice.signal(SIGINT)
        #expect(await alice.exitStatus(timeout: 10) == 0)
        await server.stop()
    }

    @Test func anOperatorOpensARoomChangesARoleAndSpeaksToOne() async throws {
        let server = try await TestServer()
        let opened = try await server.rooms(["create", "planning", "--name", "Planning", "--member-limit", "2"])
        #expect(opened.status == 0 && opened.output.contains("opened planning for at most 2 sending members"), "\(opened.output)")
        let again = try await server.rooms(["create", "planning"])
        #expect(again.status == 1 && again.output.contains("the room exists already"), "\(again.output)")
        #expect(try await server.rooms(["list"]).output.contains("planning"))
        // Watched from here on, once as JSON lines and once for people (a table when something changed).
        let admin = ["--server", server.url, "--admin-token", server.adminToken]
        let watchJSON = try ConferProcess(["rooms", "watch", "planning", "--interval", "0.3", "--json"] + admin)
        let watch = try ConferProcess(["rooms", "watch", "planning", "--interval", "0.3"] + admin)

        let host = try server.member("host", token: try await server.token("boss", role: "host", room: "planning"),
                                     ["--no-media", "--events", "--commands"], typing: true)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice", room: "planning"),
                                      ["--no-media", "--events", "--commands", "--camera-off"], typing: true)
        #expect(await alice.wait(upTo: 20) { $0.eventNames.contains("joined") }, "alice: \(alice.stderr)")
        let carol = try server.member("join", token: try await server.token("carol", room: "planning"), ["--no-media", "--events"])
        #expect(await carol.exitStatus() == 3, "the room takes two senders")
        #expect(carol.stderr.contains("roomFull"))

        // Alice joined with her camera off, and the host saw her so from the start. It asks her
        // to turn it on; before she answers, she is made an observer.
        #expect(await host.wait(upTo: 10) { $0.events.contains {
            guard $0["event"] as? String == "memberJoined", let member = $0["data"] as? [String: Any],
                  member["identity"] as? String == "alice" else { return false }
            return (member["devices"] as? [String: Any])?["camera"] as? Bool == false
        } }, "host: \(host.stdout)")
        host.type("ask alice camera")
        #expect(await alice.wait(upTo: 10) { $0.eventNames.contains("deviceRequested") }, "alice: \(alice.stderr)")

        // Alice made an observer sends nothing, so a seat is free for carol.
        let role = try await server.rooms(["role", "planning", "alice", "observer"])
        #expect(role.status == 0 && role.output.contains("alice is now observer in planning"), "\(role.output)")
        #expect(await alice.wait(upTo: 10) { $0.events.contains {
            $0["event"] as? String == "memberUpdated" && ($0["data"] as? [String: Any])?["role"] as? String == "observer" } })
        // The request is withdrawn for both: an observer has no camera to turn on. Her yes,
        // typed late, is answered at her keyboard and turns nothing on.
        func withdrawn(_ process: ConferProcess) async -> Bool {
            await process.wait(upTo: 10) { $0.events.contains {
                $0["event"] as? String == "deviceRequestEnded" && $0["identity"] as? String == "alice" && $0["outcome"] as? String == "withdrawn" } }
        }
        #expect(await withdrawn(alice), "alice: \(alice.stderr)")
        #expect(await withdrawn(host), "host: \(host.stderr)")
        alice.type("accept")
        #expect(await alice.wait(upTo: 10) { $0.events.contains { $0["event"] as? String == "commandError" && $0["line"] as? String == "accept" } })
        #expect(!alice.events.contains { $0["event"] as? String == "command" && $0["command"] as? String == "accept" })
        let carolAgain = try server.member("join", token: try await server.token("carol", room: "planning"), ["--no-media", "--events"])
        #expect(await carolAgain.wait(upTo: 20) { $0.eventNames.contains("joined") }, "carol: \(carolAgain.stderr)")

        let said = try await server.rooms(["say", "planning", "just for alice", "--to", "alice"])
        #expect(said.status == 0 && said.output.contains("sent to alice"), "\(said.output)")
        func heard(_ process: ConferProcess) -> Bool {
            process.events.contains { $0["event"] as? String == "message" && ($0["data"] as? [String: Any])?["text"] as? String == "just for alice" }
        }
        #expect(await alice.wait(upTo: 10) { heard($0) })
        try await Task.sleep(for: .milliseconds(500))
        #expect(!heard(host) && !heard(carolAgain), "nobody else hears it")

        let wizard = try await server.rooms(["role", "planning", "alice", "wizard"])
        #expect(wizard.status == 64 && wizard.output.contains("wizard"), "\(wizard.output)")

        // Closing the room ends the watches, which saw every change on the way.
        #expect(try await server.rooms(["close", "planning"]).status == 0)
        for process in [host, alice, carolAgain] { #expect(await process.exitStatus(timeout: 10) == 4) }
        #expect(await watchJSON.exitStatus(timeout: 10) == 0, "\(watchJSON.stderr)")
        #expect(await watch.exitStatus(timeout: 10) == 0, "\(watch.stderr)")
        #expect(watchJSON.stderr.contains("planning has closed") && watch.stderr.contains("planning has closed"))
        let looks = watchJSON.events
        let roles = looks.map { look in
            Dictionary(((look["members"] as? [[String: Any]]) ?? []).compactMap { member in
                (member["identity"] as? String).map { ($0, member["role"] as? String ?? "") }
            }, uniquingKeysWith: { first, _ in first })
        }
        #expect(roles.contains { $0["alice"] == "participant" } && roles.contains { $0["alice"] == "observer" && $0["carol"] == "participant" },
                "\(roles)")
        #expect(zip(looks, looks.dropFirst()).allSatisfy { ($0.0["t"] as? Double ?? 0) < ($0.1["t"] as? Double ?? 0) })
        // The server sends changes only, so no update is the one before it again.
        let states = looks.map { look in NSDictionary(dictionary: look.filter { $0.key != "t" }) }
        #expect(zip(states, states.dropFirst()).allSatisfy { !$0.0.isEqual($0.1) }, "\(looks.count) updates")
        // Updates come at most one per --interval.
        #expect(zip(looks, looks.dropFirst()).allSatisfy { ($0.1["t"] as? Double ?? 0) - ($0.0["t"] as? Double ?? 0) >= 0.29 })
        let tables = watch.stdout.components(separatedBy: "\n\n").filter { $0.contains("room planning") }
        let shown = tables.map { $0.split(separator: "\n").dropFirst().joined(separator: "\n") }
        #expect(tables.count >= 3 && zip(shown, shown.dropFirst()).allSatisfy { $0.0 != $0.1 }, "a table only when what it shows changed")
        #expect(tables.last?.contains("carol") == true && tables.last?.contains("observer") == true)
        await server.stop()
    }

    @Test func aWatchSaysWhyItCannotStartAndEndsWhenTheServerStops() async throws {
        let server = try await TestServer()
        let unknown = try await server.rooms(["watch", "nowhere"])
        #expect(unknown.status == 1 && unknown.output.contains("no such room is open"), "\(unknown.output)")
        // With --wait, a room not open yet is waited for, and watched once it opens.
        let waiting = try ConferProcess(["rooms", "watch", "later", "--wait", "--count", "1", "--json", "--server", server.url,
                                         "--admin-token", server.adminToken])
        #expect(await waiting.wait(upTo: 10) { $0.stderr.contains("waiting for later to open") }, "\(waiting.stderr)")
        try await Task.sleep(for: .milliseconds(1500))
        #expect(waiting.isRunning && waiting.events.isEmpty, "it looked again and still waits")
        #expect(try await server.rooms(["create", "later"]).status == 0)
        #expect(await waiting.exitStatus(timeout: 10) == 0, "\(waiting.stderr)")
        #expect((waiting.events.first?["room"] as? [String: Any])?["id"] as? String == "later")
        #expect(waiting.stderr.components(separatedBy: "waiting for").count == 2, "said once: \(waiting.stderr)")
        #expect(try await server.rooms(["create", "planning"]).status == 0)
        let wrong = try ConferProcess(["rooms", "watch", "planning", "--server", server.url, "--admin-token", "guess"])
        #expect(await wrong.exitStatus() == 1)
        #expect(wrong.stderr.contains("refused the admin token"), "\(wrong.stderr)")
        let http = try ConferProcess(["rooms", "show", "planning", "--server", server.url, "--admin-token", server.adminToken])
        #expect(await http.exitStatus() == 0)
        // A room whose name a URL must escape is shown and watched by that name (the server
        // once looked its percent-encoded form up, and found no such room).
        #expect(try await server.rooms(["create", "q3 review/β?"]).status == 0)
        let shown = try await server.rooms(["show", "q3 review/β?"])
        #expect(shown.status == 0 && shown.output.contains("room q3 review/β?"), "\(shown.output)")
        let escaped = try ConferProcess(["rooms", "watch", "q3 review/β?", "--count", "1", "--json", "--server", server.url,
                                         "--admin-token", server.adminToken])
        #expect(await escaped.exitStatus() == 0, "\(escaped.stderr)")
        #expect((escaped.events.first?["room"] as? [String: Any])?["id"] as? String == "q3 review/β?")

        let watch = try ConferProcess(["rooms", "watch", "planning", "--json", "--server", server.url, "--admin-token", server.adminToken])
        #expect(await watch.wait(upTo: 20) { !$0.events.isEmpty }, "the room at once: \(watch.stderr)")
        #expect(watch.events.first?["members"] as? [Any] != nil)
        await server.stop()
        #expect(await watch.exitStatus(timeout: 10) == 4)
        #expect(watch.stderr.contains("the server shut down"), "\(watch.stderr)")

        // A server without an admin token has no admin API to watch through.
        let closed = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", server.secret, "--memory-db"])
        let url = try #require(await closed.firstLine(), "\(closed.stderr)")
        let refused = try ConferProcess(["rooms", "watch", "planning", "--server", url, "--admin-token", "any"])
        #expect(await refused.exitStatus() == 1)
        #expect(refused.stderr.contains("the admin API is off"), "\(refused.stderr)")
        closed.signal(SIGTERM)
        _ = await closed.exitStatus(timeout: 10)
    }

    @Test func aKilledParticipantGoesOfflineThenOutAfterTheGrace() async throws {
        let server = try await TestServer(arguments: ["--reconnect-grace", "2"])
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--no-media", "--approve", "all", "--events"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let alice = try server.member("join", token: try await server.token("alice"), ["--no-media", "--events"])
        #expect(await alice.wait(upTo: 20) { $0.eventNames.contains("joined") })
        alice.signal(SIGKILL)
        #expect(await host.wait(upTo: 5) { process in
            process.events.contains { event in
                event["event"] as? String == "memberUpdated" && (event["data"] as? [String: Any])?["online"] as? Bool == false
            }
        }, "offline first: \(host.stdout)")
        #expect(!host.events.contains { $0["event"] as? String == "memberLeft" }, "not yet out")
        #expect(await host.wait(upTo: 6) { $0.events.contains { $0["event"] as? String == "memberLeft" && $0["reason"] as? String == "timedOut" } })
        host.signal(SIGINT)
        await server.stop()
    }

    @Test(.wallClockExclusive) func aCutConnectionResumesTheSameMember() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--approve", "all", "--events", "--size", "320x180", "--fps", "15"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let alice = try server.member("join", token: try await server.token("alice"),
                                      ["--events", "--duration", "4", "--cut-signaling-after", "1.5", "--camera-size", "160x90"])
        #expect(await alice.exitStatus() == 0, "\(alice.stderr)")
        // Media went on through the cut: the composite kept arriving in every second's figures after it.
        let cutAt = try #require(alice.events.first { $0["event"] as? String == "connection" && $0["state"] as? String == "reconnecting" }?["t"] as? Double)
        let frames = alice.events.filter { $0["event"] as? String == "connectInfo" }.compactMap { event -> (Double, Int)? in
            guard let t = event["t"] as? Double, let frames = (event["info"] as? [String: Any])?["framesReceived"] as? Int else { return nil }
            return (t, frames)
        }
        // The figures come once a second from the media's start: maybe none before the cut,
        // and then the count before it is at most what the start had, none.
        let connectedAt = try #require(alice.events.first { $0["event"] as? String == "connection" && $0["state"] as? String == "connected" }?["t"] as? Double)
        let before = frames.last { $0.0 <= cutAt } ?? (connectedAt, 0)
        let published = alice.events.filter { $0["event"] as? String == "connectInfo" }.map { ($0["info"] as? [String: Any])?["seconds"] as? Double ?? 0 }
        #expect(!published.isEmpty && published.allSatisfy { $0 > 0 }, "only figures the media published, none before: \(published)")
        let after = try #require(frames.last)
        #expect(after.0 - before.0 >= 1.5 && after.1 - before.1 >= 15, "frames \(before) → \(after) across the cut")
        let states = alice.events.filter { $0["event"] as? String == "connection" }.compactMap { $0["state"] as? String }
        #expect(states == ["connecting", "connected", "reconnecting", "reconnected", "disconnected"])
        #expect(alice.eventNames.filter { $0 == "joined" }.count == 2, "resynchronized with a snapshot")
        let hostLeft = host.events.filter { $0["event"] as? String == "memberLeft" }.compactMap { $0["reason"] as? String }
        #expect(hostLeft == ["left"], "alice stayed a member until she left")
        #expect(host.events.filter { $0["event"] as? String == "memberJoined" }.count == 1)
        host.signal(SIGINT)
        await server.stop()
    }

    /// A meeting outlasts the tokens it was joined with: the server renews a connected
    /// member's token halfway through its lifetime, and the client resumes with the renewal
    /// after the first one's `exp` (alice's 4 s token, her connection cut at 6 s). With
    /// `--no-token-refresh` the token bounds the session: alice leaves with `tokenExpired`.
    @Test func aMeetingOutlastsItsTokensAndAResumeUsesTheRenewal() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--approve", "all", "--events", "--no-media"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice", ttl: 4),
                                      ["--events", "--no-media", "--duration", "9", "--cut-signaling-after", "6"])
        #expect(await alice.exitStatus(timeout: 30) == 0, "alice: \(alice.stderr)")
        let states = alice.events.filter { $0["event"] as? String == "connection" }.compactMap { $0["state"] as? String }
        #expect(states == ["connecting", "connected", "reconnecting", "reconnected", "disconnected"], "\(states)")
        #expect(alice.eventNames.filter { $0 == "joined" }.count == 2, "resumed after her first token's exp")
        let left = host.events.filter { $0["event"] as? String == "memberLeft" }.compactMap { $0["reason"] as? String }
        #expect(left == ["left"], "alice stayed until she left: \(left)")
        host.signal(SIGINT)
        #expect(await host.exitStatus() == 0, "host: \(host.stderr)")
        await server.stop()

        let bounded = try await TestServer(arguments: ["--no-token-refresh"])
        let boss = try bounded.member("host", token: try await bounded.token("boss", role: "host"), ["--approve", "all", "--events", "--no-media"])
        #expect(await boss.wait(upTo: 20) { $0.eventNames.contains("joined") }, "host: \(boss.stderr)")
        let started = ContinuousClock.now
        let bob = try bounded.member("join", token: try await bounded.token("bob", ttl: 3), ["--events", "--no-media", "--duration", "9"])
        #expect(await bob.exitStatus(timeout: 30) == 4, "bob: \(bob.stderr)")
        #expect(ContinuousClock.now - started < .seconds(7), "ended at the token's exp, not at --duration")
        #expect(bob.stderr.contains("tokenExpired"), "\(bob.stderr)")
        #expect(await boss.wait(upTo: 5) { process in
            process.events.contains { $0["event"] as? String == "memberLeft" && $0["reason"] as? String == "tokenExpired" }
        }, "boss: \(boss.stderr)")
        boss.signal(SIGINT)
        await bounded.stop()
    }

    @Test(arguments: ["invalidToken", "tokenExpired"])
    func badTokensAreRefusedWithTheirReason(_ expected: String) async throws {
        let server = try await TestServer()
        let token: String
        if expected == "invalidToken" {
            token = try await server.token("mallory", secret: String(repeating: "f", count: 32))
        } else {
            token = try await server.token("mallory", ttl: 0.001)
            try await Task.sleep(for: .seconds(1.1))
        }
        let mallory = try server.member("join", token: token, ["--no-media", "--events"])
        #expect(await mallory.exitStatus() == 3)
        #expect(mallory.stderr.contains(expected), "\(mallory.stderr)")
        // The last word says what it means, not only the code.
        let advice = expected == "invalidToken" ? "not minted with this server's secret" : "mint a new one"
        #expect(mallory.stderr.contains("the server refused (\(expected)): ") && mallory.stderr.contains(advice), "\(mallory.stderr)")
        #expect(mallory.events.contains { $0["event"] as? String == "refused" && $0["reason"] as? String == expected })
        let metrics = try await fetch(server.url + "/metrics")
        #expect(metrics.contains(#"confer_refusals_total{reason="\#(expected)"} 1"#), "\(metrics)")
        await server.stop()
    }

    @Test func aSecretTooShortIsRefusedWithWhatToDo() async throws {
        let serve = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", "short"])
        #expect(await serve.exitStatus() != 0)
        #expect(serve.stderr.contains("32"))
        let token = try ConferProcess(["token", "--secret", "short", "--room", "r", "--identity", "a"])
        #expect(await token.exitStatus() != 0)
    }

    @Test func theAdminAPINeedsItsToken() async throws {
        let server = try await TestServer()
        let wrong = try ConferProcess(["rooms", "list", "--server", server.url, "--admin-token", "nope"])
        #expect(await wrong.exitStatus() == 1)
        #expect(wrong.stderr.contains("refused the admin token"), "\(wrong.stderr)")
        #expect(try await server.rooms(["list"]).output.contains("no open rooms"))
        // A room opened ahead of its members, with a member limit; the same id twice is a conflict.
        let created = try await curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(server.adminToken)",
                                      "-H", "Content-Type: application/json", "-d", #"{"id":"standup","memberLimit":1}"#, server.url + "/v1/rooms"])
        #expect(created == "201")
        let again = try await curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(server.adminToken)",
                                    "-H", "Content-Type: application/json", "-d", #"{"id":"standup"}"#, server.url + "/v1/rooms"])
        #expect(again == "409")
        #expect(try await server.rooms(["list"]).output.contains("standup"))
        let host = try server.member("host", token: try await server.token("boss", role: "host", room: "standup"), ["--no-media", "--events"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let second = try server.member("join", token: try await server.token("alice", room: "standup"), ["--no-media"])
        #expect(await second.exitStatus() == 3, "past the member limit")
        #expect(second.stderr.contains("roomFull"))
        host.signal(SIGINT)
        await server.stop()
    }
}

func fetch(_ url: String) async throws -> String { try await curl(["-s", url]) }

func curl(_ arguments: [String]) async throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl"] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
