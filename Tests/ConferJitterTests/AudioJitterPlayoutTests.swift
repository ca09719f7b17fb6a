import ConferCodecs
import ConferJitter
import ConferMedia
import Foundation
import Testing

@Suite("Audio jitter buffer: clean network")
struct AudioJitterPlayoutTests {
    /// `packets` decoded straight through by a fresh decoder.
    static func decodeAll(_ packets: [SentPacket]) throws -> [Int16] {
        var decoder = try OpusDecoder(channels: 1)
        var decoded: [Int16] = []
        for packet in packets { decoded += try decoder.decode(EncodedFrame(codec: .opus, data: packet.payload)).samples }
        return decoded
    }

    @Test("Without loss or jitter: target ≤ 40 ms, no concealment or stretching, the decoded stream played sample for sample")
    func cleanSpeech() throws {
        let packets = try TestSender.encode(TestAudio.speech)
        let deliveries = TestNetwork().deliver(packets)
        let run = try TestReceiver.run(deliveries, duration: .seconds(4))
        let s = run.statistics
        let inserted = deliveries.filter { $0.arrival < .seconds(3.995) }.count
        let decoded = try Self.decodeAll(packets)
        let start = run.output.count - Int(s.totalSamplesReceived)
        let played = Array(run.output[start...])
        let speechLag = TestAudio.bestLag(TestAudio.speech, run.output, lags: 0...9600, probe: 96_000..<100_800)
        let speechCorrelation = TestAudio.correlation(TestAudio.speech, run.output, lag: speechLag, range: 48_000..<run.output.count)
        print("clean: target \(s.targetDelay * 1000) ms, measured \(s.currentDelay * 1000) ms,",
              "W3C delay \(s.jitterBufferDelay / Double(s.jitterBufferEmittedCount) * 1000) ms,",
              "start \(Double(start) / 48) ms, speech correlation \(speechCorrelation) (Opus at 32 kb/s)")
        #expect(s.targetDelay <= 0.040)
        #expect(run.targets.allSatisfy { $0 <= 40 })
        #expect(s.concealedSamples == 0 && s.concealmentEvents == 0)
        #expect(s.insertedSamplesForDeceleration == 0 && s.removedSamplesForAcceleration == 0)
        #expect(s.packetsReceived == Int64(inserted) && s.packetsLost == 0 && s.packetsDiscarded == 0)
        #expect(played == Array(decoded.prefix(played.count)))
        #expect(s.jitterBufferEmittedCount == Int64(played.count))
        // The delay from sending to playing: 40 ms network + the target wait (+ a pull's rounding).
        #expect(start >= TestAudio.frames(ms: 70) && start <= TestAudio.frames(ms: 80))
        #expect(speechCorrelation >= 0.9)
        #expect(s.audioLevel > 0.01 && s.totalAudioEnergy > 0)
        #expect(abs(s.totalSamplesDuration - Double(s.totalSamplesReceived) / 48_000) < 1e-6)
    }

    @Test("Output correlates with the input ≥ 0.95 after aligning the delay (440 Hz + 1 kHz)")
    func cleanToneCorrelation() throws {
        let input = (0..<TestAudio.frames(ms: 3000)).map { n -> Int16 in
            let t = Double(n) / 48_000
            let value: Double = 0.3 * sin(2 * Double.pi * 440 * t) + 0.3 * sin(2 * Double.pi * 1000 * t)
            return Int16(value * 29_000)
        }
        let packets = try TestSender.encode(input)
        let run = try TestReceiver.run(TestNetwork().deliver(packets), duration: .seconds(3))
        // 440 + 1000 Hz repeats every 50 ms (2400 samples): search one period beyond the network delay.
        let lag = TestAudio.bestLag(input, run.output, lags: 1920...4320, probe: 72_000..<76_800)
        let correlation = TestAudio.correlation(input, run.output, lag: lag, range: 24_000..<run.output.count)
        print("tone mix: lag \(Double(lag) / 48) ms, correlation \(correlation)")
        #expect(correlation >= 0.95)
    }
}

@Suite("Audio jitter buffer: stereo output")
struct AudioJitterStereoTests {
    @Test("A stereo buffer plays a mono stream on both channels and stretches them alike")
    func stereoOutput() throws {
        let packets = try TestSender.encode(TestAudio.talking)
        let configuration = AudioJitterBufferConfiguration(channels: 2)
        let run = try TestReceiver.run(TestNetwork().deliver(packets), duration: .seconds(5), configuration: configuration) { index, buffer in
            if index == 100 { buffer.minimumDelay = .milliseconds(120) }
            if index == 300 { buffer.minimumDelay = .milliseconds(20) }
        }
        let s = run.statistics
        let left = stride(from: 0, to: run.output.count, by: 2).map { run.output[$0] }
        let right = stride(from: 1, to: run.output.count, by: 2).map { run.output[$0] }
        let start = left.count - Int(s.totalSamplesReceived) + 2400
        #expect(s.insertedSamplesForDeceleration > 0 && s.removedSamplesForAcceleration > 0)
        #expect(left == right)
        #expect(TestAudio.rms(left, start..<left.count) > 0.02)
        #expect(TestAudio.longestZeroRun(left, start..<left.count) <= TestAudio.frames(ms: 1))
    }
}
