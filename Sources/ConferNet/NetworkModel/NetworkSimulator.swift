public import ConferMedia

/// A two-way simulated network in virtual time: a forward link (say, media) and a backward
/// link (say, RTCP feedback) sharing one ``ManualClock``, so a sender → network → receiver
/// loop runs as fast as the CPU allows and the same seed replays the same run.
///
/// Send with ``send(_:byteCount:direction:)`` at the clock's current time, then move time on
/// with ``advance(to:)`` (or jump to the next event with ``advanceToNextDelivery()``) and
/// handle the packets it returns. Advancing the clock also wakes anything sleeping on it.
public struct NetworkSimulator<Payload> {
    /// Which way a packet travels.
    public enum Direction: String, Sendable, Codable, CaseIterable {
        /// From the sender to the receiver.
        case forward
        /// From the receiver back to the sender.
        case backward
    }

    /// A packet that came out of the network.
    public struct Delivery {
        /// Which way it travelled.
        public var direction: Direction
        /// The packet and its timing.
        public var delivery: NetworkDelivery<Payload>
        /// What was sent.
        public var payload: Payload { delivery.payload }
    }

    /// The virtual clock every endpoint of the simulation should read.
    public let clock: ManualClock
    /// The sender → receiver link.
    public var forward: NetworkLink<Payload>
    /// The receiver → sender link.
    public var backward: NetworkLink<Payload>

    /// A network whose forward and backward paths have the given conditions. The links draw
    /// from different streams derived from `seed`.
    public init(forward: NetworkConditions, backward: NetworkConditions = .perfect, seed: UInt64,
                clock: ManualClock = ManualClock()) {
        self.clock = clock
        let seeds = linkSeeds(seed)
        self.forward = NetworkLink(conditions: forward, seed: seeds.forward)
        self.backward = NetworkLink(conditions: backward, seed: seeds.backward)
    }

    /// A network over links built by the caller (for example trace-driven ones).
    public init(forward: NetworkLink<Payload>, backward: NetworkLink<Payload>, clock: ManualClock = ManualClock()) {
        self.clock = clock
        self.forward = forward
        self.backward = backward
    }

    /// The current virtual time.
    public var now: Timestamp { clock.now }

    /// Sends `payload` one way at the current time.
    @discardableResult
    public mutating func send(_ payload: Payload, byteCount: Int, direction: Direction) -> NetworkSendResult {
        switch direction {
        case .forward: forward.send(payload, byteCount: byteCount, at: clock.now)
        case .backward: backward.send(payload, byteCount: byteCount, at: clock.now)
        }
    }

    /// When the next packet comes out of either link; nil when nothing is in flight.
    public var nextDeliveryTime: Timestamp? {
        switch (forward.nextDeliveryTime, backward.nextDeliveryTime) {
        case let (f?, b?): min(f, b)
        case let (f, b): f ?? b
        }
    }

    /// The next packet due by `time` from either link, earliest first; on a tie the one sent
    /// earlier, then the forward one. Does not move the clock.
    public mutating func nextDelivery(until time: Timestamp) -> Delivery? {
        let f = forward.nextDeliveryTime.flatMap { $0 <= time ? $0 : nil }
        let b = backward.nextDeliveryTime.flatMap { $0 <= time ? $0 : nil }
        switch (f, b) {
        case (nil, nil):
            return nil
        case (_?, nil):
            return forward.nextDelivery(until: time).map { Delivery(direction: .forward, delivery: $0) }
        case (nil, _?):
            return backward.nextDelivery(until: time).map { Delivery(direction: .backward, delivery: $0) }
        case let (ft?, bt?):
            // Peeking at send times needs the heads; both exist, so popping the chosen one is safe.
            if ft < bt || (ft == bt && forwardSentFirst()) {
                return forward.nextDelivery(until: time).map { Delivery(direction: .forward, delivery: $0) }
            }
            return backward.nextDelivery(until: time).map { Delivery(direction: .backward, delivery: $0) }
        }
    }

    /// Moves the clock to `time` (never backwards) and returns every packet due by then, in
    /// delivery order. Sleepers on the clock wake after the packets are taken out.
    public mutating func advance(to time: Timestamp) -> [Delivery] {
        var due: [Delivery] = []
        while let delivery = nextDelivery(until: time) { due.append(delivery) }
        clock.advance(to: time)
        return due
    }

    /// Moves the clock on by `delta` and returns every packet due by then.
    public mutating func advance(by delta: TimeDelta) -> [Delivery] { advance(to: clock.now + delta) }

    /// Moves the clock to the next delivery and returns the packets due then; empty (and the
    /// clock unchanged) when nothing is in flight.
    public mutating func advanceToNextDelivery() -> [Delivery] {
        guard let next = nextDeliveryTime else { return [] }
        return advance(to: max(next, clock.now))
    }

    private func forwardSentFirst() -> Bool {
        (forward.headSentAt ?? .zero) <= (backward.headSentAt ?? .zero)
    }
}

extension NetworkSimulator: Sendable where Payload: Sendable {}
extension NetworkSimulator.Delivery: Sendable where Payload: Sendable {}

/// The seeds of a two-way network's links: distinct, fixed derivations of one seed, so the
/// directions are independent but reproducible (shared by the simulator and the relay).
func linkSeeds(_ seed: UInt64) -> (forward: UInt64, backward: UInt64) {
    var seeds = SeededRandom(seed: seed)
    return (seeds.next(), seeds.next())
}
