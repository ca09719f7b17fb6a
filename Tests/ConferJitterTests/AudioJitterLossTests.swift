import ConferCodecs
@testable import ConferJitter
import ConferMedia
import Testing

@Suite("Audio jitter buffer: loss")
struct AudioJitterLossTests {
    struct Outcome {
        var concealedShare: Double
        var recovered: Int64
        var recoverable: Int
        var lost: Int64
    }

    static func run(fec: Bool, seed: UInt64) throws -> Outcome {
        let packets = try TestSender.encode(TestAudio.talking, fec: fec)
        let delivered = TestNetwork(lossRate: 0.1, seed: seed).deliver(packets)
        let run = try TestReceiver.run(delivered, duration: .seconds(8))
        let s = run.statistics
        // Losses FEC can undo: the next packet was inserted during the run and carries LBRR.
        let arrived = Set(delivered.filter { $0.arrival < .seconds(7.995) }.map { $0.packet.sequenceNumber })
        let hasFEC = packets.map { packet in packet.payload.withUnsafeBytes { OpusPacketInfo.parse($0)?.hasFEC ?? false } }
        let recoverable = packets.indices.dropLast().filter { index in
            !arrived.contains(packets[index].sequenceNumber) && arrived.contains(packets[index + 1].sequenceNumber)
                && hasFEC[index + 1]
        }.count
        #expect(s.counterValues.allSatisfy { $0 >= 0 })
        // Loss as the sequence numbers show it: from the first to the last packet inserted.
        let inserted = delivered.filter { $0.arrival < .seconds(7.995) }.map { Int($0.packet.sequenceNumber &- 65_500) }
        #expect(s.packetsLost == Int64((inserted.max() ?? 0) - (inserted.min() ?? 0) + 1 - inserted.count))
        #expect(s.packetsReceived == Int64(inserted.count))
        return Outcome(concealedShare: Double(s.concealedSamples) / Double(s.totalSamplesReceived),
                       recovered: s.fecPacketsRecovered, recoverable: recoverable, lost: s.packetsLost)
    }

    @Test("10 % random loss: FEC recovers the single losses and keeps concealment under 3 %; without FEC it is about 10 %",
          arguments: [UInt64(1), 2, 3, 4])
    func randomLoss(seed: UInt64) throws {
        let withFEC = try Self.run(fec: true, seed: seed)
        let withoutFEC = try Self.run(fec: false, seed: seed)
        print("seed \(seed): \(withFEC.lost) lost; with FEC \(withFEC.recovered) recovered of \(withFEC.recoverable) recoverable,",
              "concealed \(withFEC.concealedShare * 100) %; without FEC concealed \(withoutFEC.concealedShare * 100) %")
        #expect(withFEC.concealedShare < 0.03)
        // Every one, except possibly a loss in the last 60 ms, whose turn has not come when the run ends.
        #expect(withFEC.recovered >= Int64(withFEC.recoverable) - 1 && withFEC.recovered <= Int64(withFEC.recoverable))
        #expect(withoutFEC.recovered == 0)
        #expect(withoutFEC.concealedShare > 0.07)
        #expect(withoutFEC.concealedShare > 2.5 * withFEC.concealedShare)
    }
}
