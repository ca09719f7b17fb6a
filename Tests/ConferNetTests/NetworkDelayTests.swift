import Testing
import Foundation
import ConferMedia
@testable import ConferNet

@Suite struct NetworkDelayTests {
    /// Expected mean and p95 one-way delay in ms for 50 ms ± 10 ms of each distribution
    /// (see the table in `Jitter`'s documentation).
    static let cases: [(Jitter.Distribution, Double, Double)] = [
        (.uniform, 50, 59),
        (.normal, 50, 66.42),
        // The tail is cut at 20 × amount, which takes 0.17 ms off the mean.
        (.pareto, 49.83, 74.72),
    ]

    @Test(arguments: cases)
    func delayDistributionHasConfiguredMeanAndP95(distribution: Jitter.Distribution, expectedMean: Double, expectedP95: Double) {
        let conditions = NetworkConditions(delay: .milliseconds(50), jitter: Jitter(distribution, .milliseconds(10)),
                                           preservesOrder: false)
        var (link, _) = sendPackets(conditions, count: 50_000, interval: .milliseconds(20))
        let latencies = drain(&link).map { Double($0.latency.microseconds) / 1000 }
        #expect(latencies.count == 50_000)
        #expect(abs(mean(latencies) - expectedMean) < 2, "mean \(mean(latencies))")
        #expect(abs(percentile(latencies, 0.95) - expectedP95) < 2, "p95 \(percentile(latencies, 0.95))")
        #expect(latencies.allSatisfy { $0 >= 0 })
    }

    @Test func fixedDelayIsExact() {
        var (link, _) = sendPackets(NetworkConditions(delay: .milliseconds(35)), count: 100)
        #expect(drain(&link).allSatisfy { $0.latency == .milliseconds(35) })
    }

    @Test func fifoModeNeverReorders() {
        // Jitter of ±20 ms on packets 1 ms apart would reorder most of them without the FIFO rule.
        let jitter = NetworkConditions(delay: .milliseconds(40), jitter: .normal(.milliseconds(20)), preservesOrder: true)
        var (fifo, _) = sendPackets(jitter, count: 20_000)
        let ordered = drain(&fifo)
        #expect(ordered.count == 20_000)
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0.sequenceNumber < $1.sequenceNumber })
        #expect(fifo.statistics.packetsReordered == 0)

        var loose = jitter
        loose.preservesOrder = false
        var (free, _) = sendPackets(loose, count: 20_000)
        _ = drain(&free)
        #expect(free.statistics.packetsReordered > 5_000)
    }

    @Test(arguments: [0.01, 0.05, 0.2])
    func reorderModeReordersAtConfiguredRate(rate: Double) {
        // Held back 20 ms with packets 5 ms apart: each held packet arrives after the next three.
        let conditions = NetworkConditions(delay: .milliseconds(30), reorder: rate, reorderDelay: .milliseconds(20))
        var (link, _) = sendPackets(conditions, count: 50_000, interval: .milliseconds(5))
        let delivered = drain(&link)
        #expect(delivered.count == 50_000)
        let fraction = Double(link.statistics.packetsReordered) / 50_000
        #expect(abs(fraction - rate) < 0.005, "reordered \(fraction)")
        // Packets not held back stay in order among themselves.
        let inOrder = delivered.filter { $0.latency == .milliseconds(30) }
        #expect(zip(inOrder, inOrder.dropFirst()).allSatisfy { $0.sequenceNumber < $1.sequenceNumber })
    }

    @Test func sameSeedSameScheduleDifferentSeedDifferent() {
        let conditions = NetworkConditions(
            delay: .milliseconds(30), jitter: .normal(.milliseconds(8)), preservesOrder: false, loss: 0.02,
            burstLoss: GilbertElliott(meanBurstLength: 3, lossRate: 0.03), reorder: 0.01, duplicate: 0.01,
            bandwidth: 2_000_000, queueLimit: .duration(.milliseconds(100)))
        func schedule(seed: UInt64) -> [String] {
            var (link, results) = sendPackets(conditions, count: 5_000, size: 500, interval: TimeDelta(microseconds: 1_500), seed: seed)
            let deliveries = drain(&link).map { "\($0.sequenceNumber)@\($0.deliveryTime.microseconds)\($0.isDuplicate ? "d" : "")" }
            return deliveries + results.map { "\($0.lossCause?.rawValue ?? "-")" } + ["\(link.statistics)"]
        }
        let first = schedule(seed: 7)
        #expect(first == schedule(seed: 7))
        #expect(first != schedule(seed: 8))
    }
}

@Suite struct NetworkConditionsCodingTests {
    @Test(arguments: [QueueLimit.bytes(30_000), .duration(.milliseconds(150))])
    func conditionsRoundTripThroughJSON(limit: QueueLimit) throws {
        let conditions = NetworkConditions(
            delay: .milliseconds(40), jitter: .pareto(.milliseconds(6)), preservesOrder: false, loss: 0.01,
            burstLoss: GilbertElliott(meanBurstLength: 3, lossRate: 0.02), reorder: 0.01, duplicate: 0.001,
            bandwidth: 2_500_000, queueLimit: limit, overheadBytes: 48)
        let json = try JSONEncoder().encode(conditions)
        #expect(try JSONDecoder().decode(NetworkConditions.self, from: json) == conditions)
        #expect(!String(decoding: json, as: UTF8.self).contains("_0"))
    }
}
