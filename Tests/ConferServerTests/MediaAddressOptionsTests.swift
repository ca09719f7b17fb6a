@testable import ConferCLI
@testable import ConferClient
import ConferMedia
import ConferNet
import ConferSession
import Testing

/// Where `confer host`, `join` and `call` bind their media and what they announce:
/// `--media-bind` and `--media-address`, checked before anything connects.
@Suite struct MediaAddressOptionsTests {
    static let member = ["--server", "http://127.0.0.1:7880", "--token", "t"]

    @Test func anAnnouncedAddressIsAHostWithOrWithoutAPort() {
        #expect(AnnouncedMediaAddress(parsing: "203.0.113.5") == AnnouncedMediaAddress(host: "203.0.113.5"))
        #expect(AnnouncedMediaAddress(parsing: "203.0.113.5:40000") == AnnouncedMediaAddress(host: "203.0.113.5", port: 40_000))
        #expect(AnnouncedMediaAddress(parsing: "media.example.com:9") == AnnouncedMediaAddress(host: "media.example.com", port: 9))
        #expect(AnnouncedMediaAddress(parsing: "[2001:db8::1]:5000") == AnnouncedMediaAddress(host: "2001:db8::1", port: 5000))
        #expect(AnnouncedMediaAddress(parsing: "2001:db8::1") == AnnouncedMediaAddress(host: "2001:db8::1"), "a bare IPv6 address")
        for bad in ["", ":5", "host:0", "host:65536", "host:x", "[::1]", "[]:5"] {
            #expect(AnnouncedMediaAddress(parsing: bad) == nil, "\(bad)")
        }
        #expect(AnnouncedMediaAddress(host: "2001:db8::1", port: 5000).description == "[2001:db8::1]:5000")
        #expect(AnnouncedMediaAddress(host: "203.0.113.5").description == "203.0.113.5")
    }

    /// Seeded strings of the characters addresses are made of: each parses to nothing or to
    /// an address whose text parses back to it.
    @Test(arguments: [1, 2, 3] as [UInt64]) func whatParsesReadsBackFromItsText(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let alphabet = Array("0123456789abcdef.:[]x-")
        var parsed = 0
        for _ in 0 ..< 20_000 {
            let length = Int(random.next() % 14)
            let text = String((0 ..< length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            guard let address = AnnouncedMediaAddress(parsing: text) else { continue }
            parsed += 1
            #expect(!address.host.isEmpty && address.port.map { (1 ... 65_535).contains($0) } ?? true, "\(text)")
            #expect(AnnouncedMediaAddress(parsing: address.description) == address, "\(text) → \(address)")
        }
        #expect(parsed > 1_000, "\(parsed) of 20,000 parsed")
    }

    @Test func whatIsAnnouncedIsTheBoundAddressUnlessAnotherIsNamed() {
        #expect(AnnouncedMediaAddress.announcing(nil, bindHost: "192.168.1.20", boundPort: 50_000) == ("192.168.1.20", 50_000, nil))
        #expect(AnnouncedMediaAddress.announcing(AnnouncedMediaAddress(host: "203.0.113.5"), bindHost: "0.0.0.0", boundPort: 50_000)
            == ("203.0.113.5", 50_000, nil), "a 1:1 NAT keeps the port")
        #expect(AnnouncedMediaAddress.announcing(AnnouncedMediaAddress(host: "203.0.113.5", port: 7000), bindHost: "0.0.0.0", boundPort: 50_000)
            == ("203.0.113.5", 7000, nil), "a port forwarded from another")
        // What the server's STUN responder saw is announced, with the bound address beside it
        // for a device on the same LAN, unless an address is named.
        let seen = STUNBindingTransaction.Outcome.mapped(UDPAddress(host: "198.51.100.1", port: 61_000))
        #expect(AnnouncedMediaAddress.announcing(nil, bindHost: "10.1.0.2", boundPort: 50_000, reflexive: seen)
            == ("198.51.100.1", 61_000, [MediaDescription.Address(host: "10.1.0.2", port: 50_000)]))
        #expect(AnnouncedMediaAddress.announcing(AnnouncedMediaAddress(host: "203.0.113.5"), bindHost: "10.1.0.2", boundPort: 50_000,
                                                 reflexive: seen) == ("203.0.113.5", 50_000, nil))
        for unanswered in [STUNBindingTransaction.Outcome.timedOut, .refused(code: 400)] {
            #expect(AnnouncedMediaAddress.announcing(nil, bindHost: "10.1.0.2", boundPort: 50_000, reflexive: unanswered) == ("10.1.0.2", 50_000, nil))
        }
        // No NAT between the device and the responder: one address is enough.
        let same = STUNBindingTransaction.Outcome.mapped(UDPAddress(host: "192.168.1.20", port: 50_000))
        #expect(AnnouncedMediaAddress.announcing(nil, bindHost: "192.168.1.20", boundPort: 50_000, reflexive: same) == ("192.168.1.20", 50_000, nil))
        // A wildcard bind is no address to send to.
        #expect(AnnouncedMediaAddress.announcing(nil, bindHost: "0.0.0.0", boundPort: 50_000, reflexive: seen) == ("198.51.100.1", 61_000, nil))
        #expect(AnnouncedMediaAddress.announcing(nil, bindHost: "::", boundPort: 50_000, reflexive: seen) == ("198.51.100.1", 61_000, nil))
    }

    /// The responder a welcome names is on the host of the server's URL, whatever its form.
    @Test func theSTUNResponderIsOnTheServersHost() {
        let port = 3478
        for (url, host) in [("http://127.0.0.1:7880", "127.0.0.1"), ("https://confer.example", "confer.example"),
                            ("wss://confer.example:8443/base?x=1", "confer.example"), ("http://[::1]:7880", "::1"),
                            ("ws://user@[2001:db8::5]/", "2001:db8::5"), ("http://user:pw@10.0.0.9:80#f", "10.0.0.9")] {
            #expect(stunServer(of: url, port: port) == UDPAddress(host: host, port: port), "\(url)")
        }
        for (url, port) in [("http://127.0.0.1:7880", nil), ("http://127.0.0.1:7880", 0), ("http://127.0.0.1", 70_000),
                            ("127.0.0.1:7880", 3478), ("http://[::1:7880", 3478), ("http://:7880", 3478)] as [(String, Int?)] {
            #expect(stunServer(of: url, port: port) == nil, "\(url) \(String(describing: port))")
        }
    }

    @Test func theOptionsReachTheMediaOfACallAndOfAMember() async throws {
        let options = ["--media-bind", "127.0.0.2", "--media-address", "203.0.113.5:40000"]
        var call = try CallCommand.parse(Self.member + options).mediaOptions
        try await CallCommand.parse(Self.member + options).mediaAddress.apply(to: &call, server: "http://127.0.0.1:7880")
        #expect(call.bindHost == "127.0.0.2" && call.announcedAddress == AnnouncedMediaAddress(host: "203.0.113.5", port: 40_000))
        for command in [try JoinCommand.parse(Self.member + options).member, try HostCommand.parse(Self.member + options).member] {
            var meeting = MeetingMediaOptions()
            try await command.mediaAddress.apply(to: &meeting, server: "http://127.0.0.1:7880")
            #expect(meeting.bindHost == "127.0.0.2" && meeting.announcedAddress?.port == 40_000)
        }
        var plain = MeetingMediaOptions()
        try await JoinCommand.parse(Self.member).member.mediaAddress.apply(to: &plain, server: "http://127.0.0.1:7880")
        #expect(plain.bindHost == "127.0.0.1" && plain.announcedAddress == nil, "a server on loopback: media on loopback, as before")
        #expect(plain.usesSTUN && call.usesSTUN, "STUN is asked unless told not to")
        var noStun = MeetingMediaOptions()
        try await JoinCommand.parse(Self.member + ["--no-stun"]).member.mediaAddress.apply(to: &noStun, server: "http://127.0.0.1:7880")
        var noStunCall = CallMediaOptions()
        try await CallCommand.parse(Self.member + ["--no-stun"]).mediaAddress.apply(to: &noStunCall, server: "http://127.0.0.1:7880")
        #expect(!noStun.usesSTUN && !noStunCall.usesSTUN)
    }

    /// An address that is not this machine's is refused before anything connects.
    @Test func anAddressNotOnThisMachineIsRefusedBeforeConnecting() async throws {
        var options = CallMediaOptions()
        let command = try CallCommand.parse(Self.member + ["--media-bind", "203.0.113.77"])
        do {
            try await command.mediaAddress.apply(to: &options, server: "http://127.0.0.1:7880")
            Issue.record("bound to an address of TEST-NET-3")
        } catch {
            #expect(CallCommand.message(for: error).hasPrefix("media cannot bind to 203.0.113.77: UDP bind 203.0.113.77:0"), "\(error)")
        }
        #expect(options.bindHost == "127.0.0.1", "left as it was")
    }

    @Test(arguments: ["http://127.0.0.1:7880", "https://localhost:8443", "ws://127.0.0.5", "http://[::1]:7880"])
    func mediaBindsToLoopbackForAServerOnLoopback(server: String) async throws {
        #expect(try await MediaAddressOptions.defaultBind(server: server) == "127.0.0.1")
    }

    @Test(arguments: [(["--media-bind", "0.0.0.0"], "--media-bind 0.0.0.0 binds every interface: say with --media-address which address the other side sends to"),
                      (["--media-bind", "::"], "--media-bind :: binds every interface: say with --media-address which address the other side sends to"),
                      (["--media-bind", "[::1]"], "--media-bind takes an address without a port or brackets, such as 192.168.1.20 or ::"),
                      (["--media-address", "203.0.113.5:0"], "--media-address must be HOST or HOST:PORT with a port from 1 to 65535 (got 203.0.113.5:0)"),
                      (["--media-address", String(repeating: "a", count: 61) + ".com:5000"], "--media-address names a host of 65 bytes; the server takes at most 64")])
    func refuses(arguments: [String], message: String) {
        let callError = #expect(throws: (any Error).self) { try CallCommand.parse(Self.member + arguments) }
        #expect(callError.map { CallCommand.message(for: $0) } == message)
        let joinError = #expect(throws: (any Error).self) { try JoinCommand.parse(Self.member + arguments) }
        #expect(joinError.map { JoinCommand.message(for: $0) } == message)
        #expect(throws: (any Error).self) { try HostCommand.parse(Self.member + arguments) }
    }
}
