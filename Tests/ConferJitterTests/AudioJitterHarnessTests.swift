import ConferCodecs
@testable import ConferJitter
import ConferMedia
import Foundation
import Testing

/// Test signals, seeded and computed once.
enum TestAudio {
    /// Samples in `milliseconds` at 48 kHz.
    static func frames(ms milliseconds: Int) -> Int { conferSampleRate * milliseconds / 1000 }

    /// Mono "speech": a voiced source gliding between 100 and 220 Hz through three moving
    /// formants, in syllables of about 200 ms over a seeded noise floor (−40 dBov). With
    /// `pauses`, the syllables are separated by silences of about 80 ms (only the floor);
    /// without, the voice only dips between them (continuous talking).
    static func speechLike(frameCount: Int, pauses: Bool = true, seed: UInt64 = 7, floor: Double = 0.01, depth: Double = 0.15) -> [Int16] {
        var random = SeededRandom(seed: seed)
        var samples = [Int16](repeating: 0, count: frameCount)
        var phase = 0.0
        var gains = [Double](repeating: 0, count: 24)
        for n in 0..<frameCount {
            let t = Double(n) / Double(conferSampleRate)
            let f0 = 160 + 60 * sin(2 * .pi * 1.3 * t) + 20 * sin(2 * .pi * 5.1 * t)
            phase += 2 * .pi * f0 / Double(conferSampleRate)
            if n % 240 == 0 {
                // Formants move slowly: their gains are refreshed every 5 ms.
                let formants = [600 + 250 * sin(2 * .pi * 2.1 * t), 1400 + 500 * sin(2 * .pi * 1.7 * t + 1), 2600.0]
                for harmonic in 1...24 {
                    let frequency = Double(harmonic) * f0
                    var gain = 0.0
                    for formant in formants {
                        let distance = (frequency - formant) / 180
                        gain += exp(-distance * distance)
                    }
                    gains[harmonic - 1] = frequency < 4500 ? (gain + 0.05) / Double(harmonic).squareRoot() : 0
                }
            }
            var voiced = 0.0
            for harmonic in 1...24 where gains[harmonic - 1] > 0 { voiced += gains[harmonic - 1] * sin(Double(harmonic) * phase) }
            let syllable = sin(2 * .pi * 4.5 * t)
            let envelope = pauses ? max(0, syllable + 0.3) / 1.3 : 1 - depth + depth * syllable
            let unvoiced = random.nextGaussian(deviation: floor)
            samples[n] = Int16(clamping: Int((0.12 * voiced * envelope + unvoiced) * 32767))
        }
        return samples
    }

    /// Four seconds of speech, shared by the tests that need it.
    static let speech = speechLike(frameCount: frames(ms: 4000))
    /// Eight seconds of continuous talking.
    static let talking = speechLike(frameCount: frames(ms: 8000), pauses: false, seed: 11, floor: 0.003)

    /// A continuous sine.
    static func tone(frequency: Double, amplitude: Double, frameCount: Int) -> [Int16] {
        (0..<frameCount).map { n in
            Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double(n) / Double(conferSampleRate))).rounded())
        }
    }

    /// RMS of `samples[range]` as a fraction of full scale.
    static func rms(_ samples: [Int16], _ range: Range<Int>) -> Double {
        guard !range.isEmpty else { return 0 }
        var sum = 0.0
        for index in range { sum += Double(samples[index]) * Double(samples[index]) }
        return (sum / Double(range.count)).squareRoot() / 32768
    }

    /// Normalised correlation of `input[n − lag]` with `output[n]` over output samples `range`.
    static func correlation(_ input: [Int16], _ output: [Int16], lag: Int, range: Range<Int>) -> Double {
        var cross = 0.0, inputEnergy = 0.0, outputEnergy = 0.0
        for n in range where n - lag >= 0 && n - lag < input.count && n < output.count {
            let x = Double(input[n - lag]), y = Double(output[n])
            cross += x * y
            inputEnergy += x * x
            outputEnergy += y * y
        }
        guard inputEnergy > 0, outputEnergy > 0 else { return 0 }
        return cross / (inputEnergy * outputEnergy).squareRoot()
    }

    /// The lag in `lags` where output best matches input over `probe` (coarse in steps of
    /// 8, then refined).
    static func bestLag(_ input: [Int16], _ output: [Int16], lags: ClosedRange<Int>, probe: Range<Int>) -> Int {
        var best = lags.lowerBound, bestScore = -2.0
        for lag in stride(from: lags.lowerBound, through: lags.upperBound, by: 8) {
            let score = correlation(input, output, lag: lag, range: probe)
            if score > bestScore { bestScore = score; best = lag }
        }
        for lag in max(lags.lowerBound, best - 8)...min(lags.upperBound, best + 8) {
            let score = correlation(input, output, lag: lag, range: probe)
            if score > bestScore { bestScore = score; best = lag }
        }
        return best
    }

    /// The longest run of exactly-zero samples in `samples[range]`.
    static func longestZeroRun(_ samples: [Int16], _ range: Range<Int>) -> Int {
        var longest = 0, current = 0
        for index in range {
            current = samples[index] == 0 ? current + 1 : 0
            longest = max(longest, current)
        }
        return longest
    }

    /// The largest |x[n] − x[n−1]| in `samples[range]`.
    static func largestStep(_ samples: [Int16], _ range: Range<Int>) -> Int {
        var largest = 0
        for index in range where index > 0 { largest = max(largest, abs(Int(samples[index]) - Int(samples[index - 1]))) }
        return largest
    }
}

/// One RTP packet as the test sender sent it.
struct SentPacket: Sendable {
    var sequenceNumber: UInt16
    var rtpTimestamp: UInt32
    var payload: [UInt8]
    /// Media time of its first sample, which is when it was sent.
    var sendTime: Timestamp
}

/// A tiny Opus sender: 20 ms frames, sequence numbers and timestamps starting near their
/// wrap, and WebRTC's DTX rule (a packet of ≤ 2 bytes is sent once on entering DTX, then
/// nothing until real audio or libopus's periodic noise update).
enum TestSender {
    static let frameDuration = 20

    static func encode(_ samples: [Int16], fec: Bool = true, lossPercent: Int = 10, dtx: Bool = false,
                       bitrate: Int = 32_000, firstSequence: UInt16 = 65_500,
                       firstTimestamp: UInt32 = 4_294_919_296) throws -> [SentPacket] {
        let settings = AudioEncoderSettings(channels: 1, bitrate: bitrate, frameDurationMs: frameDuration,
                                            inbandFEC: fec, expectedLossPercent: lossPercent, dtx: dtx)
        var encoder = try OpusEncoder(settings: settings)
        let step = settings.samplesPerFrame
        var output = EncodedFrame(codec: .opus)
        var packets: [SentPacket] = []
        var sequence = firstSequence
        var inDTX = false
        for index in 0..<(samples.count / step) {
            let frame = AudioFrame(samples: Array(samples[(index * step)..<((index + 1) * step)]), channels: 1)
            try encoder.encode(frame, into: &output)
            if output.data.count <= 2 {
                if inDTX { continue }
                inDTX = true
            } else {
                inDTX = false
            }
            packets.append(SentPacket(sequenceNumber: sequence, rtpTimestamp: firstTimestamp &+ UInt32(index * step),
                                      payload: output.data, sendTime: .milliseconds(Int64(index * frameDuration))))
            sequence &+= 1
        }
        return packets
    }
}

/// A seeded network: base delay, jitter while `jitterWindow` lasts, random loss.
struct TestNetwork: Sendable {
    enum Jitter: Sendable {
        case none
        /// Uniform in 0…max milliseconds.
        case uniform(Double)
        /// Normal with this mean and deviation in milliseconds, clipped at zero.
        case normal(mean: Double, deviation: Double)
    }

    var baseDelay: TimeDelta = .milliseconds(40)
    var jitter = Jitter.none
    var jitterWindow: Range<Timestamp> = Timestamp.zero..<Timestamp.seconds(1_000_000)
    var lossRate = 0.0
    var seed: UInt64 = 1

    /// Packets that get through, with their arrival times, in arrival order.
    func deliver(_ packets: [SentPacket]) -> [(packet: SentPacket, arrival: Timestamp)] {
        var random = SeededRandom(seed: seed)
        var result: [(packet: SentPacket, arrival: Timestamp)] = []
        for packet in packets {
            let lost = random.nextUnit() < lossRate
            var extra = 0.0
            if jitterWindow.contains(packet.sendTime) {
                switch jitter {
                case .none: break
                case .uniform(let maximum): extra = random.nextUnit() * maximum
                case let .normal(mean, deviation): extra = max(0, random.nextGaussian(mean: mean, deviation: deviation))
                }
            }
            if !lost {
                result.append((packet, packet.sendTime + baseDelay + .seconds(extra / 1000)))
            }
        }
        return result.enumerated().sorted { a, b in
            a.element.arrival != b.element.arrival ? a.element.arrival < b.element.arrival : a.offset < b.offset
        }.map(\.element)
    }
}

/// What a run produced.
struct TestRun {
    var output: [Int16] = []
    var statistics = AudioReceiveStatistics()
    /// Per pull: target delay and measured delay, in milliseconds.
    var targets: [Double] = []
    var delays: [Double] = []
    /// Per pull: the W3C average delay of the samples played in that pull, in ms (nil if none decoded).
    var playedDelays: [Double?] = []
}

/// Drives a buffer in virtual time: every 10 ms, insert what has arrived, then pull.
enum TestReceiver {
    static func run(_ deliveries: [(packet: SentPacket, arrival: Timestamp)], duration: TimeDelta,
                    configuration: AudioJitterBufferConfiguration = AudioJitterBufferConfiguration(),
                    beforePull: (Int, inout AudioJitterBuffer) -> Void = { _, _ in }) throws -> TestRun {
        var buffer = try AudioJitterBuffer(configuration: configuration)
        var run = TestRun()
        var next = 0
        var frame = AudioFrame(silenceOf: AudioJitterBuffer.framesPerPull, channels: configuration.channels)
        let pulls = Int(duration.microseconds / 10_000)
        run.output.reserveCapacity(pulls * AudioJitterBuffer.framesPerPull * configuration.channels)
        var previous = buffer.statistics
        for index in 0..<pulls {
            let now = Timestamp.milliseconds(Int64(index * 10))
            while next < deliveries.count, deliveries[next].arrival <= now {
                let packet = deliveries[next].packet
                buffer.insert(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.rtpTimestamp,
                              payload: packet.payload, arrival: deliveries[next].arrival)
                next += 1
            }
            beforePull(index, &buffer)
            buffer.pull(at: now, into: &frame)
            run.output += frame.samples
            let statistics = buffer.statistics
            run.targets.append(statistics.targetDelay * 1000)
            run.delays.append(statistics.currentDelay * 1000)
            let emitted = statistics.jitterBufferEmittedCount - previous.jitterBufferEmittedCount
            run.playedDelays.append(emitted > 0
                ? (statistics.jitterBufferDelay - previous.jitterBufferDelay) / Double(emitted) * 1000 : nil)
            previous = statistics
        }
        run.statistics = buffer.statistics
        return run
    }
}

extension AudioReceiveStatistics {
    /// Every counter, for "never negative" checks.
    var counterValues: [Int64] {
        [packetsReceived, packetsLost, packetsDuplicated, packetsDiscarded, packetsUndecodable, fecPacketsRecovered,
         jitterBufferEmittedCount, concealedSamples, silentConcealedSamples, concealmentEvents,
         insertedSamplesForDeceleration, removedSamplesForAcceleration, comfortNoiseSamples, totalSamplesReceived,
         bufferFlushes, streamResets]
    }
}

@Suite("Audio jitter test harness")
struct AudioJitterHarnessTests {
    @Test("The sender numbers packets across the wrap and sends one DTX packet per silence")
    func senderNumbersAndSuppressesDTX() throws {
        let silence = [Int16](repeating: 0, count: TestAudio.frames(ms: 1000))
        let signal = Array(TestAudio.speech.prefix(TestAudio.frames(ms: 500))) + silence
        let packets = try TestSender.encode(signal, dtx: true)
        #expect(packets.first?.sequenceNumber == 65_500)
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        let markers = packets.filter { $0.payload.count <= 2 }
        #expect(markers.count >= 1 && packets.count < 75, "\(packets.count) packets, \(markers.count) DTX markers")
        let all = try TestSender.encode(signal, dtx: false)
        #expect(all.count == 75)
        #expect(all.last?.rtpTimestamp == UInt32(4_294_919_296) &+ 74 * 960)
    }
}
