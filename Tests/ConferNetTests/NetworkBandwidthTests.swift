import Testing
import ConferMedia
@testable import ConferNet

@Suite struct NetworkBandwidthTests {
    /// 1000-byte payloads plus 28 bytes of overhead: 8224 bits per packet.
    static let bitsPerPacket = 8224.0

    @Test(arguments: [QueueLimit.duration(.milliseconds(200)), .bytes(20_000)])
    func twiceTheCapDeliversTheCapAndDropsTheRest(limit: QueueLimit) {
        let cap = 1_000_000
        let conditions = NetworkConditions(delay: .milliseconds(20), bandwidth: cap, queueLimit: limit)
        // Offered load 2 × cap for 10 s: one packet every 4.112 ms.
        let interval = TimeDelta(microseconds: Int64(Self.bitsPerPacket / Double(2 * cap) * 1e6))
        let count = Int(10_000_000 / interval.microseconds)
        var (link, results) = sendPackets(conditions, count: count, interval: interval)

        // What came out during the 10 s (after the 20 ms of propagation) is the cap.
        let end = Timestamp.seconds(10) + .milliseconds(20)
        let delivered = link.deliveries(until: end)
        let rate = Double(delivered.count) * Self.bitsPerPacket / 10
        #expect(abs(rate / Double(cap) - 1) < 0.03, "rate \(rate)")

        let stats = link.statistics
        #expect(abs(Double(stats.droppedQueue) / Double(count) - 0.5) < 0.03)
        #expect(results.filter { $0.lossCause == .queue }.count == stats.droppedQueue)
        #expect(stats.packetsLost == stats.droppedQueue)

        let bound: TimeDelta
        switch limit {
        case .duration(let d): bound = d
        case .bytes(let n): bound = TimeDelta(microseconds: Int64(n) * 8_000_000 / Int64(cap))
        }
        #expect(stats.maxQueueingDelay <= bound)
        // A packet is accepted only if it fits whole, so the wait tops out one packet and one
        // arrival interval (8.2 + 4.1 ms) short of the limit.
        let nearlyFull: TimeDelta = bound - .milliseconds(13)
        #expect(stats.maxQueueingDelay >= nearlyFull, "the queue filled up")
        #expect(results.allSatisfy { $0.queueingDelay <= bound })
        let standing: TimeDelta = bound - .milliseconds(30)
        #expect(stats.meanQueueingDelay > standing, "a standing queue")
        #expect(stats.queueBytes > 0)
    }

    @Test func underTheCapNothingQueues() {
        let conditions = NetworkConditions(bandwidth: 1_000_000, overheadBytes: 0)
        // 1000 bytes every 10 ms = 800 kbit/s: each packet takes 8 ms to serialize, then the link is idle.
        var (link, results) = sendPackets(conditions, count: 1000, interval: .milliseconds(10))
        #expect(results.allSatisfy { $0.queueingDelay == .zero && $0.isDelivered })
        #expect(drain(&link).allSatisfy { $0.latency == .milliseconds(8) })
        #expect(link.statistics.droppedQueue == 0)
    }

    @Test func queuedBytesReportsTheBacklog() {
        var link = NetworkLink<Int>(
            conditions: NetworkConditions(bandwidth: 80_000, queueLimit: .bytes(10_000), overheadBytes: 0), seed: 1)
        // Five 1000-byte packets at once: 100 ms each at 80 kbit/s.
        for i in 0..<5 { link.send(i, byteCount: 1000, at: .zero) }
        #expect(link.queuedBytes(at: .zero) == 5000)
        #expect(link.queuedBytes(at: .milliseconds(250)) == 2500)
        #expect(link.queuedBytes(at: .milliseconds(600)) == 0)
        #expect(link.deliveries(until: .milliseconds(300)).map(\.payload) == [0, 1, 2])
    }
}

/// Allocation-free steady state, checked by buffer identity as in the mixer's tests: once
/// warm, the in-flight queue keeps its address and capacity while packets stream through.
@Suite struct NetworkLinkAllocationTests {
    @Test func steadyStateReusesTheQueue() {
        let conditions = NetworkConditions(delay: .milliseconds(40), jitter: .normal(.milliseconds(5)), loss: 0.05,
                                           reorder: 0.01, duplicate: 0.01, bandwidth: 5_000_000)
        var link = NetworkLink<[UInt8]>(conditions: conditions, seed: 3)
        link.reserveCapacity(256)
        let payload = [UInt8](repeating: 7, count: 1200)
        var time = Timestamp.zero
        var delivered = 0
        func step(_ link: inout NetworkLink<[UInt8]>) {
            link.send(payload, at: time)
            while let delivery = link.nextDelivery(until: time) { delivered += delivery.byteCount }
            time += .milliseconds(2)
        }
        for _ in 0..<100 { step(&link) }
        let before = link.storageFingerprint
        for _ in 0..<10_000 { step(&link) }
        #expect(link.storageFingerprint == before)
        #expect(link.packetsInFlight > 10 && link.packetsInFlight < 256)
        #expect(delivered > 9_000 * 1200)
    }
}
