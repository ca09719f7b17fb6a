import ConferClient
import ConferMedia
import ConferNet
import ConferTestSupport
import Foundation
import Testing

/// The server's STUN responder, between separate processes: `confer serve` names its port,
/// answers a Binding request with the asker's address, tells members and devices where it is
/// in their welcome, and runs none with `--no-stun`. Then the reason for it: two devices,
/// each behind its own NAT (network namespaces, `Scripts/nat-lab`), whose call connects
/// only because each announces the address the server saw; and two behind the same NAT,
/// which connect because each announces its LAN address beside it.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct STUNProcessTests {
    /// `confer token` under `secret`: a call token for `identity`.
    func token(_ secret: String, calls identity: String) async throws -> String {
        try await mint(["--secret", secret, "--calls", "--identity", identity])
    }

    /// `confer token` under `secret`: a token for `identity` in room `r` with `role`.
    func token(_ secret: String, room identity: String, _ role: String) async throws -> String {
        try await mint(["--secret", secret, "--room", "r", "--identity", identity, "--role", role])
    }

    private func mint(_ arguments: [String]) async throws -> String {
        let minting = try ConferProcess(["token"] + arguments)
        #expect(await minting.exitStatus() == 0, "token: \(minting.stderr)")
        return minting.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `confer serve --json` and what its first line says.
    func serve(_ arguments: [String], executable: [String] = []) async throws -> (ConferProcess, url: String, stun: Int?, secret: String) {
        let secret = (0 ..< 32).map { _ in String(UInt8.random(in: 0 ... 15), radix: 16) }.joined()
        let command = executable + [ConferProcess.binary.path, "serve", "--secret", secret, "--memory-db", "--json"] + arguments
        let process = try ConferProcess(executable: command[0], Array(command.dropFirst()))
        let line = try #require(await process.firstLine(), "no URL: \(process.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        return (process, try #require(object["url"] as? String), object["stun"] as? Int, secret)
    }

    @Test(.wallClockExclusive) func serveAnswersABindingRequestWithTheAskersAddress() async throws {
        let (server, url, port, _) = try await serve(["--listen", "127.0.0.1:0"])
        let stun = UDPAddress(host: "127.0.0.1", port: try #require(port, "no STUN port in the first line"))
        let said = await server.wait(upTo: 5) { $0.stderr.contains("STUN on udp 127.0.0.1:\(stun.port)") }
        #expect(said, "\(server.stderr)")
        // A Binding from a socket of our own comes back with that socket's address in it.
        let mapped = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0), reflexiveThrough: stun) { socket in
            (socket.reflexive, socket.localPort)
        }
        #expect(mapped.0 == .mapped(UDPAddress(host: "127.0.0.1", port: mapped.1)))
        // Junk is dropped, counted, and does not stop the responder.
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { socket in
            try await socket.send([0x80, 0x60, 0, 1, 2, 3], to: stun)
            try await socket.send(Array(repeating: 0, count: 20), to: stun)
        }
        let again = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0), reflexiveThrough: stun) { $0.reflexive }
        guard case .mapped = again else { Issue.record("no answer after junk: \(String(describing: again))"); return }
        let metrics = try await fetch(url + "/metrics")
        #expect(metrics.contains(#"confer_stun_requests_total{outcome="answered"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"confer_stun_requests_total{outcome="dropped"} 2"#), "\(metrics)")
        server.signal(SIGTERM)
        #expect(await server.exitStatus(timeout: 10) == 0)
    }

    /// Listening on IPv6 loopback (`--listen [::1]:0`, the form the URL is printed in), the
    /// responder reads the asker's IPv6 address from the socket and hands it back.
    @Test(.wallClockExclusive) func anIPv6AskerGetsItsIPv6Address() async throws {
        let (server, url, port, _) = try await serve(["--listen", "[::1]:0"])
        #expect(url.hasPrefix("http://[::1]:"), "\(url)")
        let stun = UDPAddress(host: "::1", port: try #require(port, "no STUN port in the first line: \(server.stderr)"))
        let mapped = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "::1", port: 0), reflexiveThrough: stun) { socket in
            (socket.reflexive, socket.localPort)
        }
        #expect(mapped.0 == .mapped(UDPAddress(host: "::1", port: mapped.1)))
        server.signal(SIGTERM)
        #expect(await server.exitStatus(timeout: 10) == 0)
    }

    /// Each welcome names the port, and a client puts it on the server's host; without a
    /// responder, no port and no `stun` in the first line.
    @Test(.wallClockExclusive) func welcomesNameTheResponderUnlessThereIsNone() async throws {
        for noStun in [false, true] {
            let (server, url, port, secret) = try await serve(["--listen", "127.0.0.1:0"] + (noStun ? ["--no-stun"] : []))
            #expect((port == nil) == noStun)
            let minting = try ConferProcess(["token", "--secret", secret, "--room", "r", "--identity", "ann", "--role", "host"])
            #expect(await minting.exitStatus() == 0)
            let client = try MeetingClient(configuration: MeetingClientConfiguration(
                server: url, token: minting.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            _ = try await client.join()
            #expect(await client.stunServer == port.map { UDPAddress(host: "127.0.0.1", port: $0) })
            await client.leave()
            server.signal(SIGTERM)
            #expect(await server.exitStatus(timeout: 10) == 0)
        }
    }

    @Test(.wallClockExclusive) func aTakenSTUNPortIsSaidAtStart() async throws {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { taken in
            let secret = String(repeating: "a", count: 32)
            let server = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", secret, "--memory-db", "--stun-port", "\(taken.localPort)"])
            #expect(await server.exitStatus(timeout: 20) != 0)
            #expect(server.stderr.contains("cannot answer STUN") && server.stderr.contains("--stun-port"), "\(server.stderr)")
        }
    }

    /// Alice and Bob each behind a NAT that lets in only answers to what was sent out, the
    /// server outside both. Each announces where the server saw its media socket, each
    /// challenges the other there, and the NATs let the answers in: the call connects, both
    /// ways. With `--no-stun`, each announces its inside address, which the other cannot
    /// reach, and the call never connects: the NATs are real.
    @Test(.wallClockExclusive, .enabled(if: NATLab.available, "needs root, iproute2 and nftables (Scripts/nat-lab check)"))
    func aCallConnectsWhenBothSidesAreBehindNATs() async throws {
        let lab = try await NATLab()
        defer { lab.tearDown() }
        for noStun in [false, true] {
            let (server, url, stunPort, secret) = try await serve(["--listen", "198.51.100.10:0", "--connection-timeout", "5"],
                                                                 executable: lab.exec("server"))
            #expect(stunPort != nil)
            let extra = noStun ? ["--no-stun"] : []
            let bob = try lab.confer("bob", ["call", "--server", url, "--token", try await token(secret, calls: "bob"), "--device", "phone",
                                             "--json", "--events"] + extra)
            #expect(await bob.wait(upTo: 20) { $0.eventNames.contains("signedIn") }, "bob: \(bob.stderr)")
            let alice = try lab.confer("alice", ["call", "--server", url, "--token", try await token(secret, calls: "alice"), "--to", "bob", "--video",
                                                 "--duration", "3", "--json"] + extra)
            _ = await alice.exitStatus(timeout: 40)
            _ = await bob.exitStatus(timeout: 15)
            for (name, process, nat) in [("alice", alice, "198.51.100.1"), ("bob", bob, "198.51.100.2")] {
                let summary = try #require(process.events.last, "\(name): \(process.stdout) \(process.stderr)")
                let frames = summary["framesReceived"] as? Int ?? -1
                if noStun {
                    #expect(summary["result"] as? String == "timedOut", "\(name): \(summary)")
                    #expect(frames == 0 && summary["reflexiveAddress"] == nil, "\(name): \(summary)")
                } else {
                    #expect(summary["result"] as? String == "completed", "\(name): \(summary) \(process.stderr)")
                    #expect(frames >= 30, "\(name) decoded \(frames) frames in 3 s")
                    #expect((summary["reflexiveAddress"] as? String)?.hasPrefix("\(nat):") == true, "\(name): \(summary)")
                }
            }
            server.signal(SIGTERM)
            _ = await server.exitStatus(timeout: 10)
        }
    }

    /// Alice and Carol behind the same NAT, which does not hairpin: a datagram to its own
    /// public address does not come back in. Each announces where the server saw it and the
    /// address it is bound to; the NAT's mapping never answers, the LAN address does, and
    /// media goes there.
    @Test(.wallClockExclusive, .enabled(if: NATLab.available, "needs root, iproute2 and nftables (Scripts/nat-lab check)"))
    func aCallConnectsBetweenTwoDevicesBehindTheSameNAT() async throws {
        let lab = try await NATLab()
        defer { lab.tearDown() }
        let (server, url, _, secret) = try await serve(["--listen", "198.51.100.10:0", "--connection-timeout", "5"],
                                                       executable: lab.exec("server"))
        let carol = try lab.confer("carol", ["call", "--server", url, "--token", try await token(secret, calls: "carol"), "--device", "phone",
                                             "--json", "--events"])
        #expect(await carol.wait(upTo: 20) { $0.eventNames.contains("signedIn") }, "carol: \(carol.stderr)")
        let alice = try lab.confer("alice", ["call", "--server", url, "--token", try await token(secret, calls: "alice"), "--to", "carol",
                                             "--video", "--duration", "3", "--json"])
        _ = await alice.exitStatus(timeout: 40)
        _ = await carol.exitStatus(timeout: 15)
        for (name, process, other) in [("alice", alice, "10.1.0.3"), ("carol", carol, "10.1.0.2")] {
            let summary = try #require(process.events.last, "\(name): \(process.stdout) \(process.stderr)")
            #expect(summary["result"] as? String == "completed", "\(name): \(summary) \(process.stderr)")
            let frames = summary["framesReceived"] as? Int ?? -1
            #expect(frames >= 30, "\(name) decoded \(frames) frames in 3 s")
            #expect((summary["reflexiveAddress"] as? String)?.hasPrefix("198.51.100.1:") == true, "\(name): \(summary)")
            #expect((summary["peerAddress"] as? String)?.hasPrefix("\(other):") == true, "\(name) sent to the other's LAN address: \(summary)")
        }
        server.signal(SIGTERM)
        _ = await server.exitStatus(timeout: 10)
    }

    /// The same for a meeting: the host behind one NAT, one member (Bob) behind the other and
    /// one (Carol) behind the host's. Each announces where the server saw it and its bound
    /// address; the composite reaches both members, Bob's through the NATs and Carol's across
    /// the LAN, and both members' cameras reach the host.
    @Test(.wallClockExclusive, .enabled(if: NATLab.available, "needs root, iproute2 and nftables (Scripts/nat-lab check)"))
    func aMeetingConnectsWhenHostAndMemberAreBehindNATs() async throws {
        let lab = try await NATLab()
        defer { lab.tearDown() }
        let (server, url, _, secret) = try await serve(["--listen", "198.51.100.10:0"], executable: lab.exec("server"))
        let host = try lab.confer("alice", ["host", "--server", url, "--token", try await token(secret, room: "ann", "host"), "--approve", "all",
                                            "--duration", "5", "--json"])
        try await Task.sleep(for: .seconds(1))
        let bob = try lab.confer("bob", ["join", "--server", url, "--token", try await token(secret, room: "bob", "participant"),
                                         "--duration", "3", "--json"])
        let carol = try lab.confer("carol", ["join", "--server", url, "--token", try await token(secret, room: "carol", "participant"),
                                             "--duration", "3", "--json"])
        #expect(await bob.exitStatus(timeout: 30) == 0, "bob: \(bob.stderr)")
        #expect(await carol.exitStatus(timeout: 30) == 0, "carol: \(carol.stderr)")
        #expect(await host.exitStatus(timeout: 30) == 0, "host: \(host.stderr)")
        for (name, process, nat, hostSeenAt, least) in [("host", host, "198.51.100.1", nil, 60), ("bob", bob, "198.51.100.2", "198.51.100.1", 30),
                                                        ("carol", carol, "198.51.100.1", "10.1.0.2", 30)] {
            let report = try #require(try JSONSerialization.jsonObject(with: Data(process.stdout.utf8)) as? [String: Any], "\(name): \(process.stdout)")
            let figures = try #require((report["media"] as? [String: Any])?["figures"] as? [String: Any], "\(name): \(report)")
            let frames = figures["framesReceived"] as? Int ?? -1
            #expect(frames >= least, "\(name) decoded \(frames) frames: \(figures)")
            #expect((figures["reflexiveAddress"] as? String)?.hasPrefix("\(nat):") == true, "\(name): \(figures)")
            if let hostSeenAt {
                #expect((figures["peerAddress"] as? String)?.hasPrefix("\(hostSeenAt):") == true, "\(name) sent to the host there: \(figures)")
            }
        }
        server.signal(SIGTERM)
        _ = await server.exitStatus(timeout: 10)
    }
}

/// `Scripts/nat-lab`'s namespaces for one test, removed by ``tearDown()``.
struct NATLab {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/nat-lab").path

    /// Whether this machine can make the namespaces (root, iproute2, nftables).
    static var available: Bool {
        guard let check = try? Process.run(URL(fileURLWithPath: script), arguments: ["check"]) else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }

    let name = "cf\(UInt16.random(in: 0 ... .max))"

    init() async throws {
        let up = try ConferProcess(executable: Self.script, ["up", name])
        #expect(await up.exitStatus(timeout: 30) == 0, "nat-lab up: \(up.stderr)")
    }

    /// The command prefix that runs a program in `node`'s namespace.
    func exec(_ node: String) -> [String] { ["/usr/sbin/ip", "netns", "exec", "\(name)-\(node)"] }

    /// `confer` with `arguments` in `node`'s namespace.
    func confer(_ node: String, _ arguments: [String]) throws -> ConferProcess {
        let command = exec(node) + [ConferProcess.binary.path] + arguments
        return try ConferProcess(executable: command[0], Array(command.dropFirst()))
    }

    func tearDown() {
        guard let down = try? Process.run(URL(fileURLWithPath: Self.script), arguments: ["down", name]) else { return }
        down.waitUntilExit()
    }
}
