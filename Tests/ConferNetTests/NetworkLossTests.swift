import Testing
import ConferMedia
@testable import ConferNet

@Suite struct NetworkLossTests {
    @Test(arguments: [0.01, 0.1, 0.3])
    func randomLossMatchesConfiguredRate(rate: Double) {
        var (link, results) = sendPackets(NetworkConditions(loss: rate), count: 100_000)
        let lost = results.filter { !$0.isDelivered }.count
        #expect(abs(Double(lost) / 100_000 - rate) < 0.005)
        #expect(results.allSatisfy { $0.lossCause == nil || $0.lossCause == .random })
        #expect(link.statistics.lostRandom == lost)
        #expect(abs(link.statistics.lossRate - rate) < 0.005)
        let delivered = drain(&link)
        #expect(delivered.count == 100_000 - lost)
        #expect(link.statistics.packetsDelivered == delivered.count)
        #expect(link.statistics.bytesDelivered == delivered.count * 1000)
        #expect(link.statistics.packetsInFlight == 0)
    }

    @Test func gilbertElliottConvenienceSolvesForTheChain() {
        let model = GilbertElliott(meanBurstLength: 4, lossRate: 0.1)
        #expect(abs(model.badToGood - 0.25) < 1e-12)
        #expect(abs(model.stationaryLossRate - 0.1) < 1e-12)
        #expect(abs(model.meanBadStay - 4) < 1e-12)
        #expect(abs(NetworkConditions(loss: 0.1, burstLoss: model).expectedLossRate - 0.19) < 1e-12)
    }

    @Test(arguments: [(2.0, 0.05), (4.0, 0.1), (10.0, 0.2)])
    func gilbertElliottGivesConfiguredBurstsAndLoss(burst: Double, rate: Double) {
        let conditions = NetworkConditions(burstLoss: GilbertElliott(meanBurstLength: burst, lossRate: rate))
        let (link, results) = sendPackets(conditions, count: 100_000)
        var bursts: [Int] = []
        var run = 0
        for result in results {
            if result.isDelivered {
                if run > 0 { bursts.append(run) }
                run = 0
            } else {
                run += 1
            }
        }
        if run > 0 { bursts.append(run) }
        let meanBurst = Double(bursts.reduce(0, +)) / Double(bursts.count)
        #expect(abs(meanBurst - burst) <= 0.1 * burst, "mean burst \(meanBurst)")
        #expect(abs(link.statistics.lossRate - rate) <= 0.1 * rate, "loss \(link.statistics.lossRate)")
        #expect(link.statistics.lostBurst == link.statistics.packetsLost)
    }

    @Test func independentLossIsNotBursty() {
        // Control for the test above: the same loss rate without the chain has bursts near 1/(1 − p).
        let (_, results) = sendPackets(NetworkConditions(loss: 0.1), count: 100_000)
        var bursts = 0, losses = 0
        var previousLost = false
        for result in results {
            let lost = !result.isDelivered
            if lost { losses += 1; if !previousLost { bursts += 1 } }
            previousLost = lost
        }
        #expect(abs(Double(losses) / Double(bursts) - 1 / 0.9) < 0.05)
    }

    @Test func duplicationMatchesConfiguredRate() {
        var (link, results) = sendPackets(NetworkConditions(delay: .milliseconds(10), duplicate: 0.05), count: 100_000)
        let duplicated = results.filter { $0.duplicateDeliveryTime != nil }.count
        #expect(abs(Double(duplicated) / 100_000 - 0.05) < 0.005)
        #expect(link.statistics.packetsDuplicated == duplicated)
        let delivered = drain(&link)
        #expect(delivered.count == 100_000 + duplicated)
        let copies = delivered.filter(\.isDuplicate)
        #expect(copies.count == duplicated)
        #expect(copies.allSatisfy { $0.payload == Int($0.sequenceNumber) })
        #expect(link.statistics.packetsReordered == 0)
    }
}
