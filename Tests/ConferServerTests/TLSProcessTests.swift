import Foundation
import Testing

/// SRTP keys travel over signaling, so the server speaks TLS when given a certificate:
/// a self-signed one made here with openssl, trusted by the client with --trust.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TLSProcessTests {
    @Test func aMemberJoinsOverWSSWithASelfSignedCertificate() async throws {
        let directory = NSTemporaryDirectory() + "confer-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["", "other-"] {
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            openssl.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                 "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", "\(directory)/\(name)key.pem",
                                 "-out", "\(directory)/\(name)cert.pem"]
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
        }

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
        host.signal(SIGINT)
        await server.stop()
    }
}
