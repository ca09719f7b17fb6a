import ConferCodecs
import ConferJitter
import ConferMedia
import Testing

@Suite("Audio jitter buffer: adaptive delay and time stretching")
struct AudioJitterDelayTests {
    /// 95th percentile of the packets' arrival delay above the fastest one, in ms.
    static func relativeDelayPercentile(_ deliveries: [(packet: SentPacket, arrival: Timestamp)], during window: Range<Timestamp>) -> Double {
        let delays = deliveries.filter { window.contains($0.packet.sendTime) }
            .map { Double(($0.arrival - $0.packet.sendTime).microseconds) / 1000 }
        let sorted = delays.sorted()
        return sorted[Int(Double(sorted.count - 1) * 0.95)] - sorted[0]
    }

    @Test("Jitter raises the target to cover it; when it stops, target and delay come back down by accelerating",
          arguments: [TestNetwork.Jitter.uniform(30), .normal(mean: 15, deviation: 10)])
    func jitterThenCalm(_ jitter: TestNetwork.Jitter) throws {
        let speech = TestAudio.speechLike(frameCount: TestAudio.frames(ms: 20_000), pauses: false, seed: 3, floor: 0.003)
        let packets = try TestSender.encode(speech)
        let jitterWindow = Timestamp.zero..<Timestamp.seconds(6)
        let deliveries = TestNetwork(jitter: jitter, jitterWindow: jitterWindow, seed: 5).deliver(packets)
        var jitteryStatistics = AudioReceiveStatistics()
        let run = try TestReceiver.run(deliveries, duration: .seconds(20)) { index, buffer in
            if index == 600 { jitteryStatistics = buffer.statistics }
        }
        let p95 = Self.relativeDelayPercentile(deliveries, during: jitterWindow)
        // Target and measured delay late in the jittery part (4–6 s) and at the end (18–20 s).
        let jitteryTarget = run.targets[400..<600].max() ?? 0
        let jitteryDelay = run.delays[400..<600].reduce(0, +) / 200
        let calmTarget = run.targets[1800..<2000].max() ?? 0
        let calmDelay = run.delays[1800..<2000].reduce(0, +) / 200
        let played = { (range: Range<Int>) -> Double in
            let values = run.playedDelays[range].compactMap { $0 }
            return values.reduce(0, +) / Double(values.count)
        }
        let s = run.statistics
        print("jitter \(jitter): p95 \(p95) ms; target \(jitteryTarget) → \(calmTarget) ms; measured delay \(jitteryDelay) → \(calmDelay) ms;",
              "W3C delay \(played(400..<600)) → \(played(1800..<2000)) ms; removed \(s.removedSamplesForAcceleration),",
              "inserted \(s.insertedSamplesForDeceleration), concealed \(s.concealedSamples), RFC 3550 jitter \(jitteryStatistics.jitter * 1000) ms")
        #expect(jitteryTarget >= p95 && jitteryTarget <= p95 + 20, "target \(jitteryTarget) ms for p95 \(p95) ms")
        #expect(calmTarget <= 30.5, "target after the jitter \(calmTarget) ms")
        #expect(calmTarget < jitteryTarget - 5)
        #expect(calmDelay < jitteryDelay - 5, "delay \(jitteryDelay) → \(calmDelay) ms")
        #expect(s.removedSamplesForAcceleration > 0)
        // Covering the 95th percentile, the jitter costs little concealment.
        #expect(Double(s.concealedSamples) < 0.02 * Double(s.totalSamplesReceived), "concealed \(s.concealedSamples)")
        // RFC 3550 jitter: about a third of the spread while it lasts, and decays after.
        #expect(jitteryStatistics.jitter > 0.005 && jitteryStatistics.jitter < 0.02, "jitter \(jitteryStatistics.jitter) s")
        #expect(s.jitter < 0.001)
    }

    @Test("Raising then lowering the minimum delay preemptively expands then accelerates a 440 Hz tone without a gap or click")
    func toneThroughDelayChanges() throws {
        let amplitude = 0.4
        let tone = TestAudio.tone(frequency: 440, amplitude: amplitude, frameCount: TestAudio.frames(ms: 5000))
        let packets = try TestSender.encode(tone, bitrate: 64_000)
        let run = try TestReceiver.run(TestNetwork().deliver(packets), duration: .seconds(4.9)) { index, buffer in
            if index == 100 { buffer.minimumDelay = .milliseconds(150) }
            if index == 300 { buffer.minimumDelay = .milliseconds(20) }
        }
        let s = run.statistics
        let maximumSlope = amplitude * 32767 * 2 * Double.pi * 440 / Double(conferSampleRate)
        let start = run.output.count - Int(s.totalSamplesReceived) + TestAudio.frames(ms: 50)
        let largestStep = TestAudio.largestStep(run.output, start..<run.output.count)
        print("tone: inserted \(s.insertedSamplesForDeceleration), removed \(s.removedSamplesForAcceleration),",
              "delay at 2.9 s \(run.delays[290]) ms, at the end \(run.delays.last ?? 0) ms,",
              "largest step \(largestStep) (sine slope \(maximumSlope))")
        #expect(s.insertedSamplesForDeceleration > 4800 && s.removedSamplesForAcceleration > 4800)
        #expect(run.delays[290] >= 140, "delay after raising the minimum: \(run.delays[290]) ms")
        #expect((run.delays.last ?? 0) <= 45, "delay after lowering it again: \(run.delays.last ?? 0) ms")
        #expect(Double(largestStep) <= 1.2 * maximumSlope, "step \(largestStep) against slope \(maximumSlope)")
        #expect(TestAudio.longestZeroRun(run.output, start..<run.output.count) <= 2)
        #expect(s.concealedSamples == 0)
    }

    @Test("Speech through delay changes keeps its own smoothness and has no silent gap")
    func speechThroughDelayChanges() throws {
        let speech = TestAudio.talking
        let packets = try TestSender.encode(speech)
        let run = try TestReceiver.run(TestNetwork().deliver(packets), duration: .seconds(7.9)) { index, buffer in
            if index == 100 { buffer.minimumDelay = .milliseconds(200) }
            if index == 400 { buffer.minimumDelay = .milliseconds(20) }
        }
        // The same packets decoded straight through: the signal's own largest step.
        var decoder = try OpusDecoder(channels: 1)
        var decoded: [Int16] = []
        for packet in packets { decoded += try decoder.decode(EncodedFrame(codec: .opus, data: packet.payload)).samples }
        let s = run.statistics
        let start = run.output.count - Int(s.totalSamplesReceived) + TestAudio.frames(ms: 50)
        let ownStep = TestAudio.largestStep(decoded, 0..<decoded.count)
        let step = TestAudio.largestStep(run.output, start..<run.output.count)
        let zeros = TestAudio.longestZeroRun(run.output, start..<run.output.count)
        print("speech: inserted \(s.insertedSamplesForDeceleration), removed \(s.removedSamplesForAcceleration),",
              "largest step \(step) (decoded \(ownStep)), longest zero run \(zeros)")
        #expect(s.insertedSamplesForDeceleration > 4800 && s.removedSamplesForAcceleration > 4800)
        #expect(Double(step) <= 1.2 * Double(ownStep))
        #expect(zeros <= TestAudio.frames(ms: 1))
        #expect(s.concealedSamples == 0)
    }
}
