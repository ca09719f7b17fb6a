import ConferMedia
import NIOCore
import Synchronization

/// A real UDP relay that pushes any peer's stream (FFmpeg, GStreamer, Confer) through the
/// ``NetworkLink`` model on the wall clock.
///
/// Datagrams arriving on ``UDPRelayConfiguration/listen`` from anyone but the destination go
/// through the forward link to ``UDPRelayConfiguration/destination``; datagrams from the
/// destination go through the backward link to whoever sent last (so RTCP feedback finds its
/// way home). Each datagram leaves when the model says it arrives: the relay sleeps on a
/// ``WallClock`` until then.
///
/// Memory is bounded: the bandwidth queue limit applies, and at most
/// ``UDPRelayConfiguration/maxPacketsInFlight`` datagrams are held per direction.
public final class UDPRelay: Sendable {
    /// What the relay does.
    public let configuration: UDPRelayConfiguration
    private let clock = WallClock()
    private let state: Mutex<State>

    private struct State {
        var forward: NetworkLink<[UInt8]>
        var backward: NetworkLink<[UInt8]>
        var lastSender: UDPAddress?
        var counters = UDPRelayStatistics()
        var startedAt: Timestamp?
        var stoppedAt: Timestamp?
    }

    /// A relay that does nothing until ``run(onReady:)``.
    public init(_ configuration: UDPRelayConfiguration) {
        self.configuration = configuration
        let seeds = linkSeeds(configuration.seed)
        state = Mutex(State(
            forward: NetworkLink(conditions: configuration.forward, seed: seeds.forward, trace: configuration.trace),
            backward: NetworkLink(conditions: configuration.backward, seed: seeds.backward)))
    }

    /// The counters now (safe to read while the relay runs, for progress).
    public var statistics: UDPRelayStatistics {
        let now = clock.now
        return state.withLock { s in
            var snapshot = s.counters
            snapshot.forward = s.forward.statistics
            snapshot.backward = s.backward.statistics
            if let start = s.startedAt { snapshot.elapsed = (s.stoppedAt ?? now) - start }
            return snapshot
        }
    }

    /// Binds the socket, calls `onReady` with the bound port, and relays until the configured
    /// duration has passed or the calling task is cancelled; then returns the final counters.
    /// Datagrams still in flight when it stops are discarded. Throws only when the socket
    /// cannot be opened or fails.
    public func run(onReady: @Sendable (Int) -> Void = { _ in }) async throws -> UDPRelayStatistics {
        let destinationHost = Self.numericHost(of: configuration.destination)
        try await UDPSocket.withSocket(bindingTo: configuration.listen) { socket in
            state.withLock { $0.startedAt = clock.now }
            onReady(socket.localPort)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.relay(socket, destinationHost: destinationHost) }
                if let duration = self.configuration.duration {
                    group.addTask { try await Task.sleep(for: duration.duration) }
                }
                do {
                    _ = try await group.next()
                } catch is CancellationError {
                    // Stopped from outside (SIGINT in the CLI): a normal end.
                }
                group.cancelAll()
            }
        }
        let now = clock.now
        state.withLock { s in
            s.stoppedAt = now
            s.forward.discardInFlight()
            s.backward.discardInFlight()
        }
        return statistics
    }

    /// Receives until cancelled; schedules a wake-up for each delivery time, and one loop
    /// sends whatever is due whenever woken, so datagrams leave in delivery order.
    private func relay(_ socket: UDPSocket, destinationHost: String) async throws {
        let (ticks, tick) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await self.deliver(socket, ticks: ticks) }
            do {
                for try await datagram in socket.datagrams {
                    let now = clock.now
                    let fromDestination = datagram.source.port == configuration.destination.port
                        && datagram.source.host == destinationHost
                    let result = accept(datagram.bytes, fromDestination: fromDestination, source: datagram.source, at: now)
                    wake(tick, at: result?.deliveryTime, now: now, in: &group)
                    wake(tick, at: result?.duplicateDeliveryTime, now: now, in: &group)
                }
            } catch is CancellationError {}
            tick.finish()
        }
    }

    /// Makes sure the delivery loop runs at `time`: now if it is due, else from a sleeping task.
    private func wake(_ tick: AsyncStream<Void>.Continuation, at time: Timestamp?, now: Timestamp,
                      in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        guard let time else { return }
        if time <= now {
            tick.yield()
            return
        }
        group.addTask { [clock] in
            try? await clock.sleep(until: time)
            tick.yield()
        }
    }

    /// Puts one received datagram into the right link; nil when it was not accepted.
    private func accept(_ bytes: [UInt8], fromDestination: Bool, source: UDPAddress, at now: Timestamp) -> NetworkSendResult? {
        let limit = configuration.maxPacketsInFlight
        return state.withLock { s -> NetworkSendResult? in
            if fromDestination {
                guard s.lastSender != nil else { s.counters.droppedNoPeer += 1; return nil }
                guard s.backward.packetsInFlight < limit else { s.counters.droppedOverflow += 1; return nil }
                return s.backward.send(bytes, at: now)
            }
            s.lastSender = source
            guard s.forward.packetsInFlight < limit else { s.counters.droppedOverflow += 1; return nil }
            return s.forward.send(bytes, at: now)
        }
    }

    /// Sends everything due each time it is woken, until the wake-ups end.
    private func deliver(_ socket: UDPSocket, ticks: AsyncStream<Void>) async {
        for await _ in ticks {
            let now = clock.now
            while case let (bytes, destination, forward)? = nextDue(at: now) {
                do {
                    try await socket.send(bytes, to: destination)
                    state.withLock { s in
                        if forward { s.counters.datagramsForwarded += 1 } else { s.counters.datagramsReturned += 1 }
                    }
                } catch {
                    // A refused or unroutable datagram is the network's loss, not the relay's end.
                    state.withLock { $0.counters.sendErrors += 1 }
                }
            }
        }
    }

    /// The next datagram due at `now`, where it goes, and whether it is a forward one.
    private func nextDue(at now: Timestamp) -> ([UInt8], UDPAddress, Bool)? {
        let destination = configuration.destination
        return state.withLock { s -> ([UInt8], UDPAddress, Bool)? in
            if let d = s.forward.nextDelivery(until: now) { return (d.payload, destination, true) }
            while let d = s.backward.nextDelivery(until: now) {
                if let peer = s.lastSender { return (d.payload, peer, false) }
            }
            return nil
        }
    }

    /// The numeric form of `address`'s host, as received datagrams report their source.
    private static func numericHost(of address: UDPAddress) -> String {
        (try? SocketAddress.makeAddressResolvingHost(address.host, port: address.port))?.ipAddress ?? address.host
    }
}
