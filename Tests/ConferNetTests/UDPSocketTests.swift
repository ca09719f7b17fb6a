import Testing
@testable import ConferNet

@Suite struct UDPSocketTests {
    @Test func addressParsing() {
        #expect(UDPAddress(parsing: "127.0.0.1:5004") == UDPAddress(host: "127.0.0.1", port: 5004))
        #expect(UDPAddress(parsing: "[::1]:9") == UDPAddress(host: "::1", port: 9))
        #expect(UDPAddress(parsing: "localhost") == nil)
        #expect(UDPAddress(parsing: "host:70000") == nil)
        #expect(UDPAddress(parsing: ":5") == nil)
    }

    @Test(.timeLimit(.minutes(1))) func datagramsCrossLoopback() async throws {
        let received = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { receiver in
            try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { sender in
                for i in 0..<5 { try await sender.send([UInt8](repeating: UInt8(i), count: 1000 + i), to: UDPAddress(host: "127.0.0.1", port: receiver.localPort)) }
            }
            var sizes: [Int] = []
            for try await datagram in receiver.datagrams {
                sizes.append(datagram.bytes.count)
                #expect(datagram.bytes.allSatisfy { $0 == UInt8(sizes.count - 1) })
                if sizes.count == 5 { break }
            }
            return sizes
        }
        #expect(received == [1000, 1001, 1002, 1003, 1004])
    }

    /// A port one socket holds cannot be bound again, so two receivers on one port fail loudly
    /// instead of one of them silently getting nothing (SO_REUSEADDR would let both bind).
    @Test(.timeLimit(.minutes(1))) func aPortInUseIsRefused() async throws {
        let port = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { first in
            let taken = UDPAddress(host: "127.0.0.1", port: first.localPort)
            do {
                try await UDPSocket.withSocket(bindingTo: taken) { _ in }
                Issue.record("a second socket bound \(taken)")
            } catch let error as UDPError {
                #expect(error.kind == .addressInUse)
                #expect(error.description.contains("choose another port"), "\(error)")
            }
            return first.localPort
        }
        // Once the first is closed the port is free again: no lingering state as TCP has.
        let again = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: port)) { $0.localPort }
        #expect(again == port)
    }

    @Test func anAddressNotOnThisMachineIsNotLocal() async throws {
        for stun in [nil, UDPAddress(host: "127.0.0.1", port: 9)] {
            do {
                try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "192.0.2.1", port: 0), reflexiveThrough: stun) { _ in }
                Issue.record("bound an address this machine does not have")
            } catch let error as UDPError {
                #expect(error.kind == .notLocal, "\(error)")
                #expect("\(error)".contains("not one of this machine's"))
            }
        }
    }

    /// The address a route to a host leaves from: loopback for loopback (any of 127/8), and an
    /// address media can be bound to for a host elsewhere; what does not resolve is said so.
    @Test(.timeLimit(.minutes(1))) func theLocalAddressTowardAHostIsTheOneItsRouteLeavesFrom() async throws {
        #expect(try await UDPSocket.localHost(reaching: "127.0.0.1") == "127.0.0.1")
        #expect(try await UDPSocket.localHost(reaching: "127.0.0.9") == "127.0.0.1", "the loopback interface's address")
        do {
            _ = try await UDPSocket.localHost(reaching: "no-such-host.invalid")
            Issue.record("an unresolvable host")
        } catch {
            #expect(error.kind == .unresolvable, "\(error)")
        }
        // TEST-NET-1 (RFC 5737): routed like any outside address where there is a default route.
        do {
            let local = try await UDPSocket.localHost(reaching: "192.0.2.1")
            #expect(!local.hasPrefix("127."), "an outside host is not reached from loopback: \(local)")
            let bound = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: local, port: 0)) { $0.localPort }
            #expect(bound > 0, "media can bind where the route leaves from")
        } catch let error as UDPError {
            #expect(error.kind == .unreachable, "no default route on this machine: \(error)")
        }
    }
}
