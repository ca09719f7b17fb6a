import ConferMedia
@testable import ConferNet
import Testing

/// The media socket asks a STUN responder where it is seen from before NIO takes it over,
/// then works as any other socket.
@Suite struct STUNSocketTests {
    /// A responder on one socket; a second socket bound with `reflexiveThrough` it learns its
    /// own address and port, and then sends and receives as usual.
    @Test(.timeLimit(.minutes(1))) func aSocketLearnsWhereItIsSeenFromAndStillWorks() async throws {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { server in
            let responder = Task {
                var responder = STUNResponder()
                var answered = 0
                for try await datagram in server.datagrams {
                    if let response = responder.respond(to: datagram.bytes, from: datagram.source) {
                        try await server.send(response, to: datagram.source)
                        answered += 1
                    } else {
                        // After the Binding, the client's plain datagram arrives here: echo it.
                        try await server.send(datagram.bytes, to: datagram.source)
                        return answered
                    }
                }
                return answered
            }
            let stun = UDPAddress(host: "127.0.0.1", port: server.localPort)
            let echoed = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0), reflexiveThrough: stun) { client in
                #expect(client.reflexive == .mapped(UDPAddress(host: "127.0.0.1", port: client.localPort)))
                try await client.send([0x80, 1, 2, 3], to: stun)
                for try await datagram in client.datagrams { return datagram.bytes }
                return []
            }
            #expect(echoed == [0x80, 1, 2, 3])
            #expect(try await responder.value == 1)
        }
    }

    /// Nothing listens at the responder's port: the ICMP port unreachable that loopback sends
    /// back ends the Binding as unreachable (without it, the outcome would be a time-out, 1.5 s
    /// later), and the error is gone when NIO takes the socket, which then works as usual.
    @Test(.timeLimit(.minutes(1))) func aClosedResponderPortEndsTheBindingAsUnreachable() async throws {
        let closed = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { $0.localPort }
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0)) { peer in
            let stun = UDPAddress(host: "127.0.0.1", port: closed)
            let received = try await UDPSocket.withSocket(bindingTo: UDPAddress(host: "127.0.0.1", port: 0), reflexiveThrough: stun) { client in
                #expect(client.reflexive == .unreachable)
                try await peer.send([0x80, 9], to: UDPAddress(host: "127.0.0.1", port: client.localPort))
                for try await datagram in client.datagrams { return datagram.bytes }
                return []
            }
            #expect(received == [0x80, 9])
        }
    }
}
