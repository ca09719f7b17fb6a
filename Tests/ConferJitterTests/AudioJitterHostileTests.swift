import ConferCodecs
@testable import ConferJitter
import ConferMedia
import Foundation
import Testing

@Suite("Audio jitter buffer: bad and hostile input")
struct AudioJitterHostileTests {
    typealias Delivery = (packet: SentPacket, arrival: Timestamp)

    static func cleanRun() throws -> (deliveries: [Delivery], run: TestRun) {
        let deliveries = TestNetwork().deliver(try TestSender.encode(TestAudio.speech))
        return (deliveries, try TestReceiver.run(deliveries, duration: .seconds(4)))
    }

    @Test("Duplicates are counted, not received again, and change nothing in the output")
    func duplicates() throws {
        let (deliveries, clean) = try Self.cleanRun()
        var doubled: [Delivery] = []
        for (index, delivery) in deliveries.enumerated() {
            doubled.append(delivery)
            if index % 2 == 0 { doubled.append((delivery.packet, delivery.arrival + .milliseconds(3))) }
            if index % 10 == 0 { doubled.append((delivery.packet, delivery.arrival + .milliseconds(300))) }
        }
        doubled.sort { $0.arrival < $1.arrival }
        let run = try TestReceiver.run(doubled, duration: .seconds(4))
        let s = run.statistics
        let extra = doubled.filter { $0.arrival < .seconds(3.995) }.count - deliveries.filter { $0.arrival < .seconds(3.995) }.count
        #expect(run.output == clean.output)
        #expect(s.packetsDuplicated == Int64(extra))
        #expect(s.packetsReceived == clean.statistics.packetsReceived)
        #expect(s.packetsLost == 0 && s.packetsDiscarded == 0)
    }

    @Test("Far-future timestamps and far sequence numbers are dropped as outside the stream; the output is unchanged")
    func farOutliers() throws {
        let (deliveries, clean) = try Self.cleanRun()
        var spiked = deliveries
        for index in stride(from: 20, to: 180, by: 40) {
            var future = deliveries[index].packet
            future.sequenceNumber &+= 1
            future.rtpTimestamp &+= 48_000 * 10
            var far = deliveries[index].packet
            far.sequenceNumber &+= 20_000
            spiked.insert((future, deliveries[index].arrival), at: index + 1)
            spiked.insert((far, deliveries[index].arrival), at: index + 1)
        }
        spiked.sort { $0.arrival < $1.arrival }
        let run = try TestReceiver.run(spiked, duration: .seconds(4))
        let s = run.statistics
        #expect(run.output == clean.output)
        #expect(s.packetsDiscarded == 8 && s.streamResets == 0)
        #expect(s.packetsLost == 0)
    }

    @Test("Garbage payloads libopus refuses are counted as undecodable and played as losses")
    func garbagePayloads() throws {
        var random = SeededRandom(seed: 9)
        var deliveries = TestNetwork().deliver(try TestSender.encode(TestAudio.talking))
        var garbage = 0, refused = 0
        for index in deliveries.indices where index % 17 == 5 {
            let length = Int(random.next() % 300)
            let payload = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            deliveries[index].packet.payload = payload
            guard deliveries[index].arrival < .seconds(7.995) else { continue }
            garbage += 1
            // Opus has no checksum: random bytes that happen to be well-formed decode to
            // noise. The oracle is libopus itself.
            var decoder = try OpusDecoder(channels: 1)
            if (try? decoder.decode(EncodedFrame(codec: .opus, data: payload))) == nil { refused += 1 }
        }
        let run = try TestReceiver.run(deliveries, duration: .seconds(8))
        let s = run.statistics
        print("garbage: \(garbage) corrupted, \(refused) refused by libopus, \(s.packetsUndecodable) undecodable,",
              "\(s.fecPacketsRecovered) recovered by FEC, \(s.concealedSamples) concealed")
        #expect(refused > 0 && s.packetsUndecodable == Int64(refused))
        // Each refused packet is a gap: recovered from the next packet's FEC, or concealed.
        #expect(s.fecPacketsRecovered + s.concealedSamples / 960 >= Int64(refused))
        #expect(s.counterValues.allSatisfy { $0 >= 0 })
        let start = run.output.count - Int(s.totalSamplesReceived)
        #expect(TestAudio.rms(run.output, start..<run.output.count) > 0.02)
    }

    @Test("A sender that restarts with new numbers after a long gap is followed after two packets; the gap fades to comfort noise")
    func restartAfterLongGap() throws {
        let first = TestNetwork().deliver(try TestSender.encode(Array(TestAudio.talking.prefix(96_000))))
        let secondInput = Array(TestAudio.talking[96_000..<192_000])
        var second = TestNetwork().deliver(try TestSender.encode(secondInput, firstSequence: 12_345, firstTimestamp: 777))
        for index in second.indices { second[index].arrival += .seconds(5) }
        let run = try TestReceiver.run(first + second, duration: .seconds(7))
        let s = run.statistics
        let gapEnd = TestAudio.frames(ms: 5000)
        let gapRMS = TestAudio.rms(run.output, (gapEnd - 48_000)..<gapEnd)
        let resumed = TestAudio.frames(ms: 5200)..<TestAudio.frames(ms: 7000)
        let lag = TestAudio.bestLag(secondInput, run.output, lags: 240_000...250_000, probe: resumed.lowerBound..<(resumed.lowerBound + 4800))
        let correlation = TestAudio.correlation(secondInput, run.output, lag: lag, range: resumed)
        print("restart: resets \(s.streamResets), discarded \(s.packetsDiscarded), gap end at \(20 * log10(max(gapRMS, 1e-9))) dBov,",
              "resumed after \(Double(lag - 240_000) / 48) ms, correlation \(correlation)")
        #expect(s.streamResets == 1)
        #expect(s.packetsDiscarded == 1)
        // Comfort noise at the level of the stream's quietest audio, at most the −40 dBov ceiling.
        #expect(gapRMS > 0 && gapRMS < 0.0105)
        #expect(s.silentConcealedSamples > Int64(TestAudio.frames(ms: 2500)))
        #expect(correlation > 0.9)
        #expect(s.packetsLost == 0)
        #expect(TestAudio.longestZeroRun(run.output, TestAudio.frames(ms: 2100)..<run.output.count) < 48)
    }

    @Test("A pause with the timestamps running on (no DTX packet) plays comfort noise and resumes without loss")
    func pauseWithoutDTX() throws {
        var deliveries = TestNetwork().deliver(try TestSender.encode(TestAudio.talking))
        // The sender stops for 1.5 s: packets 100…174 are never sent, numbering carries on.
        deliveries = deliveries.filter { !(100..<175).contains(Int($0.packet.sequenceNumber &- 65_500)) }
        for index in deliveries.indices where deliveries[index].packet.sequenceNumber &- 65_500 >= 175 {
            deliveries[index].packet.sequenceNumber &-= 75
        }
        let run = try TestReceiver.run(deliveries, duration: .seconds(6))
        let s = run.statistics
        print("pause: concealed \(s.concealedSamples), silent \(s.silentConcealedSamples), comfort noise \(s.comfortNoiseSamples)")
        #expect(s.packetsLost == 0)
        // Unknown at first whether packets are lost: 200 ms of concealment fading to noise,
        // then comfort noise until the stream is back.
        #expect(s.concealedSamples <= Int64(TestAudio.frames(ms: 1600)))
        #expect(s.silentConcealedSamples > 0)
        #expect(s.concealmentEvents == 1)
    }

    @Test("10 000 random packets: no crash, bounded storage, one 10 ms frame per pull, counters never negative")
    func randomPackets() throws {
        var random = SeededRandom(seed: 77)
        var buffer = try AudioJitterBuffer(configuration: AudioJitterBufferConfiguration(channels: 2, maximumPackets: 50))
        var frame = AudioFrame(silenceOf: 480, channels: 2)
        let valid = try TestSender.encode(Array(TestAudio.speech.prefix(48_000)))
        var now = Timestamp.zero
        var outcomes: [AudioJitterBufferInsertOutcome: Int] = [:]
        for index in 0..<10_000 {
            let sequence = UInt16(truncatingIfNeeded: random.next())
            let timestamp = UInt32(truncatingIfNeeded: random.next())
            var payload: [UInt8]
            switch index % 4 {
            case 0: payload = (0..<Int(random.next() % 1600)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1: payload = valid[Int(random.next() % UInt64(valid.count))].payload
            case 2: payload = [UInt8(truncatingIfNeeded: random.next())]
            default: payload = []
            }
            // Some packets near each other, so some land in the stream.
            let nearSequence = index % 3 == 0 ? UInt16(truncatingIfNeeded: index / 3) : sequence
            let nearTimestamp = index % 3 == 0 ? UInt32(truncatingIfNeeded: index / 3 * 960) : timestamp
            let outcome = buffer.insert(sequenceNumber: nearSequence, rtpTimestamp: nearTimestamp, payload: payload, arrival: now)
            outcomes[outcome, default: 0] += 1
            #expect(buffer.packets.count <= 50)
            if index % 3 == 2 {
                buffer.pull(at: now, into: &frame)
                #expect(frame.samples.count == 960 && frame.channels == 2)
                #expect(buffer.queue.count <= buffer.queue.capacity)
                now += .milliseconds(10)
            }
        }
        let s = buffer.statistics
        print("random packets: \(outcomes), \(s)")
        #expect(s.counterValues.allSatisfy { $0 >= 0 })
        #expect(s.packetsReceived + s.packetsDuplicated <= 10_000)
        #expect(s.packetsUndecodable > 0 && s.packetsDiscarded > 1000)
        #expect(s.jitter.isFinite && s.jitter >= 0)
        // Storage never reaches beyond what the configuration allows.
        #expect(s.bufferLevel <= 2.0 + 0.5 + 0.2, "buffer level \(s.bufferLevel) s")
        #expect(s.currentDelay <= 2.0 + 0.5 + 0.2, "delay \(s.currentDelay) s")
        #expect(s.concealedSamples <= s.totalSamplesReceived)
        #expect(s.silentConcealedSamples <= s.concealedSamples)
        #expect(outcomes[.accepted, default: 0] > 0)
    }
}
