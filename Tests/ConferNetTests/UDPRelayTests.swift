import Testing
import ConferMedia
@testable import ConferNet

@Suite struct UDPRelayTests {
    static let loopback = "127.0.0.1"

    /// Up to `count` datagrams from `socket`, or nil if they have not all come within `limit`.
    func receive(_ count: Int, on socket: UDPSocket, within limit: Duration) async throws -> [UDPDatagram]? {
        try await withThrowingTaskGroup(of: [UDPDatagram]?.self) { group in
            group.addTask {
                var received: [UDPDatagram] = []
                for try await datagram in socket.datagrams {
                    received.append(datagram)
                    if received.count == count { break }
                }
                return received
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    // Wall clock for the relay; the assertions are on counts only, never on timings.
    @Test(.timeLimit(.minutes(1)))
    func relayCarriesALossyDelayedStreamBothWays() async throws {
        let conditions = NetworkConditions(delay: .milliseconds(20), loss: 0.1)
        let seed: UInt64 = 5
        // Each datagram's fate depends only on its arrival order and the seed, so the pure
        // model says exactly which of the 200 the relay will pass.
        var model = NetworkLink<Int>(conditions: conditions, seed: linkSeeds(seed).forward)
        let expected = (0..<200).filter { model.send($0, byteCount: 100, at: .zero).isDelivered }
        #expect(abs(expected.count - 180) <= 25)

        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: Self.loopback, port: 0)) { receiver in
            try await UDPSocket.withSocket(bindingTo: UDPAddress(host: Self.loopback, port: 0)) { sender in
                let relay = UDPRelay(UDPRelayConfiguration(
                    listen: UDPAddress(host: Self.loopback, port: 0),
                    destination: UDPAddress(host: Self.loopback, port: receiver.localPort),
                    forward: conditions, seed: seed))
                let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
                try await withThrowingTaskGroup(of: UDPRelayStatistics.self) { group in
                    group.addTask { try await relay.run(onReady: { portSink.yield($0); portSink.finish() }) }
                    var readyPorts = ports.makeAsyncIterator()
                    let relayAddress = UDPAddress(host: Self.loopback, port: try #require(await readyPorts.next()))

                    for i in 0..<200 {
                        try await sender.send([UInt8](repeating: UInt8(i), count: 100), to: relayAddress)
                    }
                    let forwarded = try #require(try await receive(expected.count, on: receiver, within: .seconds(5)))
                    #expect(forwarded.map { Int($0.bytes[0]) }.sorted() == expected)
                    #expect(forwarded.allSatisfy { $0.bytes.count == 100 && $0.source.port == relayAddress.port })

                    // Feedback from the destination goes back to the last sender, untouched.
                    for i in 0..<3 { try await receiver.send([0xEE, UInt8(i)], to: relayAddress) }
                    let returned = try #require(try await receive(3, on: sender, within: .seconds(5)))
                    #expect(returned.map(\.bytes) == [[0xEE, 0], [0xEE, 1], [0xEE, 2]])

                    group.cancelAll()
                    let stats = try #require(try await group.next())
                    #expect(stats.forward.packetsSent == 200)
                    #expect(stats.forward.packetsDelivered == forwarded.count)
                    #expect(stats.forward.lostRandom == 200 - forwarded.count)
                    #expect(stats.datagramsForwarded == forwarded.count)
                    #expect(stats.backward.packetsSent == 3 && stats.datagramsReturned == 3)
                    #expect(stats.sendErrors == 0 && stats.droppedOverflow == 0 && stats.droppedNoPeer == 0)
                    #expect(stats.forward.packetsInFlight == 0)
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func relayStopsAfterItsDuration() async throws {
        let relay = UDPRelay(UDPRelayConfiguration(
            listen: UDPAddress(host: Self.loopback, port: 0), destination: UDPAddress(host: Self.loopback, port: 9),
            forward: .perfect, duration: .milliseconds(50)))
        let stats = try await relay.run()
        #expect(stats.forward.packetsSent == 0)
        #expect(stats.elapsed >= .milliseconds(50))
    }
}
