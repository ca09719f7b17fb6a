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

    @Test func anAddressNotOnThisMachineIsABindFailure() async throws {
        do {
            try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "192.0.2.1", port: 0)) { _ in }
            Issue.record("bound an address this machine does not have")
        } catch let error as UDPError {
            #expect(error.kind == .bindFailed, "\(error)")
        }
    }
}
