import Foundation
import Testing

/// SRTP keys travel over signaling, so the server speaks TLS when given a certificate:
/// a self-signed one made here with openssl, trusted by the client with --trust.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TLSProcessTests {
    /// A self-signed certificate for 127.0.0.1 and its key, `PREFIXcert.pem` and `PREFIXkey.pem`.
    func makeCertificate(in directory: String, prefix: String = "") throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", "\(directory)/\(prefix)key.pem",
                             "-out", "\(directory)/\(prefix)cert.pem"]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
    }

    /// A certificate or key that is missing or is not what it should be: the server does not
    /// start, and says which file and what is wrong with it.
    @Test func aCertificateOrKeyItCannotUseIsNamed() async throws {
        let directory = NSTemporaryDirectory() + "confer-tls-bad-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try makeCertificate(in: directory)
        let cert = "\(directory)/cert.pem", key = "\(directory)/key.pem", missing = "\(directory)/missing.pem"
        for (pair, expected) in [((missing, key), "cannot read certificate \(missing): No such file or directory"),
                                 ((key, key), "\(key) holds no PEM certificate"),
                                 ((cert, cert), "\(cert) holds no PEM private key")] {
            let serve = try ConferProcess(["serve", "--listen", "127.0.0.1:0", "--secret", String(repeating: "s", count: 32), "--memory-db",
                                           "--cert", pair.0, "--key", pair.1])
            #expect(await serve.exitStatus() == 1, "\(serve.stderr)")
            #expect(serve.stderr.contains(expected), "\(serve.stderr)")
        }
    }

    @Test func aMemberJoinsOverWSSWithASelfSignedCertificate() async throws {
        let directory = NSTemporaryDirectory() + "confer-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["", "other-"] { try makeCertificate(in: directory, prefix: name) }

        let server = try await TestServer(arguments: ["--cert", "\(directory)/cert.pem", "--key", "\(directory)/key.pem"])
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "all", "--events", "--no-media", "--trust", "\(directory)/cert.pem"])
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") }, "\(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"),
                                      ["--events", "--no-media", "--duration", "1", "--trust", "\(directory)/cert.pem"])
        #expect(await alice.exitStatus() == 0, "\(alice.stderr)")
        #expect(alice.eventNames.contains("joined"))
        // Trusting another certificate, the client refuses the server (and without one, an address cannot be checked).
        let wrong = try server.member("join", token: try await server.token("carol"),
                                      ["--events", "--no-media", "--duration", "1", "--trust", "\(directory)/other-cert.pem"])
        #expect(await wrong.exitStatus() == 1)
        #expect(!wrong.eventNames.contains("joined") && wrong.stderr.contains("cannot reach"), "\(wrong.stderr)")
        let untrusting = try server.member("join", token: try await server.token("dave"), ["--events", "--no-media", "--duration", "1"])
        #expect(await untrusting.exitStatus() != 0)
        #expect(untrusting.stderr.contains("--trust"))
        // An administrator watches the room over wss:// with the same certificate trusted.
        let watch = try ConferProcess(["rooms", "watch", "room", "--count", "1", "--json", "--trust", "\(directory)/cert.pem",
                                       "--server", server.url, "--admin-token", server.adminToken])
        #expect(await watch.exitStatus() == 0, "\(watch.stderr)")
        #expect((watch.events.first?["members"] as? [[String: Any]])?.contains { $0["identity"] as? String == "boss" } == true)
        let blind = try ConferProcess(["rooms", "watch", "room", "--count", "1", "--server", server.url, "--admin-token", server.adminToken])
        #expect(await blind.exitStatus() == 64 && blind.stderr.contains("--trust"), "\(blind.stderr)")
        // The rest of `confer rooms` goes over https:// the same way.
        let admin = ["--server", server.url, "--admin-token", server.adminToken]
        let shown = try ConferProcess(["rooms", "show", "room", "--json", "--trust", "\(directory)/cert.pem"] + admin)
        #expect(await shown.exitStatus() == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("\"identity\":\"boss\""), "\(shown.stdout)")
        let said = try ConferProcess(["rooms", "say", "room", "over TLS", "--trust", "\(directory)/cert.pem"] + admin)
        #expect(await said.exitStatus() == 0 && said.stdout.contains("sent to room"), "\(said.stderr)")
        #expect(await host.wait(upTo: 10) { $0.events.contains { ($0["data"] as? [String: Any])?["text"] as? String == "over TLS" } })
        let listedBlind = try ConferProcess(["rooms", "list"] + admin)
        #expect(await listedBlind.exitStatus() == 64 && listedBlind.stderr.contains("--trust"), "\(listedBlind.stderr)")
        let listedWrong = try ConferProcess(["rooms", "list", "--trust", "\(directory)/other-cert.pem"] + admin)
        #expect(await listedWrong.exitStatus() == 1 && listedWrong.stderr.contains("cannot reach"), "\(listedWrong.stderr)")
        host.signal(SIGINT)
        await server.stop()
    }
}
