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
}
