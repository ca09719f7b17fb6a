import ConferMedia
import ConferNet

/// Both directions of a simulated path, as ``NetworkLink``s in virtual time. When the
/// conditions change, a new link takes new packets while the old one delivers what it still
/// carries. A class so the send pipeline's and receive pipeline's output closures can put
/// datagrams into it without holding the pipelines.
final class SimulationNetwork {
    /// Links sender → receiver, the newest last; only it takes new packets.
    private var forward: [NetworkLink<[UInt8]>]
    /// Links receiver → sender.
    private var backward: [NetworkLink<[UInt8]>]
    private var seed: UInt64
    /// The time datagrams sent now are stamped with.
    var now = Timestamp.zero
    /// One-way delay of every forward packet delivered.
    private(set) var forwardDelays: [TimeDelta] = []
    /// Bytes the sender put on the forward path.
    private(set) var forwardBytesSent = 0

    init(forward: NetworkConditions, backward: NetworkConditions, trace: NetworkTrace?, seed: UInt64) {
        self.seed = seed
        self.forward = [NetworkLink(conditions: forward, seed: seed, trace: trace)]
        self.backward = [NetworkLink(conditions: backward, seed: seed &+ 0x9E37_79B9_7F4A_7C15)]
        self.forward[0].reserveCapacity(4096)
        self.backward[0].reserveCapacity(256)
    }

    /// Sends a datagram from the sender.
    func sendForward(_ datagram: UnsafeRawBufferPointer) {
        forwardBytesSent += datagram.count
        forward[forward.count - 1].send(Array(datagram), at: now)
    }

    /// Sends a datagram from the receiver.
    func sendBackward(_ datagram: UnsafeRawBufferPointer) {
        backward[backward.count - 1].send(Array(datagram), at: now)
    }

    /// New conditions for packets sent from now on.
    func change(forward newForward: NetworkConditions, backward newBackward: NetworkConditions) {
        seed = seed &+ 0x5851_F42D_4C95_7F2D
        forward.append(NetworkLink(conditions: newForward, seed: seed))
        backward.append(NetworkLink(conditions: newBackward, seed: seed &+ 0x9E37_79B9_7F4A_7C15))
    }

    /// Datagrams on their way to the receiver.
    var forwardPacketsInFlight: Int { forward.reduce(0) { $0 + $1.packetsInFlight } }

    /// When the next datagram arrives at either end.
    var nextDeliveryTime: Timestamp? {
        (forward.compactMap(\.nextDeliveryTime) + backward.compactMap(\.nextDeliveryTime)).min()
    }

    /// The next datagram due at the receiver by `time`, oldest first.
    func nextForwardDelivery(until time: Timestamp) -> [UInt8]? {
        guard let delivery = Self.next(from: &forward, until: time) else { return nil }
        forwardDelays.append(delivery.latency)
        return delivery.payload
    }

    /// The next datagram due at the sender by `time`.
    func nextBackwardDelivery(until time: Timestamp) -> [UInt8]? {
        Self.next(from: &backward, until: time)?.payload
    }

    private static func next(from links: inout [NetworkLink<[UInt8]>], until time: Timestamp) -> NetworkDelivery<[UInt8]>? {
        var best: Int?
        for index in links.indices {
            guard let due = links[index].nextDeliveryTime, due <= time else { continue }
            if let current = best, let bestDue = links[current].nextDeliveryTime, bestDue <= due { continue }
            best = index
        }
        guard let best else { return nil }
        return links[best].nextDelivery(until: time)
    }

    /// What the forward path did, over every link it used.
    var forwardStatistics: NetworkLinkStatistics { Self.total(forward) }
    /// What the backward path did.
    var backwardStatistics: NetworkLinkStatistics { Self.total(backward) }

    private static func total(_ links: [NetworkLink<[UInt8]>]) -> NetworkLinkStatistics {
        var sum = NetworkLinkStatistics()
        for link in links {
            let s = link.statistics
            sum.packetsSent += s.packetsSent
            sum.packetsDelivered += s.packetsDelivered
            sum.packetsDuplicated += s.packetsDuplicated
            sum.packetsReordered += s.packetsReordered
            sum.lostRandom += s.lostRandom
            sum.lostBurst += s.lostBurst
            sum.droppedQueue += s.droppedQueue
            sum.lostTrace += s.lostTrace
            sum.bytesSent += s.bytesSent
            sum.bytesDelivered += s.bytesDelivered
            sum.totalQueueingDelay = sum.totalQueueingDelay + s.totalQueueingDelay
            sum.maxQueueingDelay = max(sum.maxQueueingDelay, s.maxQueueingDelay)
            sum.queueBytes += s.queueBytes
            sum.packetsInFlight += s.packetsInFlight
        }
        return sum
    }
}
