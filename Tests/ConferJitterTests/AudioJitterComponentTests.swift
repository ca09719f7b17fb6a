import ConferCodecs
@testable import ConferJitter
import ConferMedia
import ConferRTP
import Foundation
import Testing

@Suite("Audio jitter buffer components")
struct AudioJitterComponentTests {
    static func info(_ bytes: [UInt8]) -> OpusPacketInfo? { bytes.withUnsafeBytes { OpusPacketInfo.parse($0) } }

    @Test("The Opus TOC gives each configuration's duration and frame count; malformed packets are refused")
    func opusPacketInfo() {
        // (TOC byte, payload) → samples per channel.
        #expect(Self.info([0 << 3, 1])?.frameCount == 480)          // SILK NB 10 ms
        #expect(Self.info([1 << 3, 1])?.frameCount == 960)          // SILK NB 20 ms
        #expect(Self.info([10 << 3, 1])?.frameCount == 1920)        // SILK WB 40 ms
        #expect(Self.info([11 << 3, 1])?.frameCount == 2880)        // SILK WB 60 ms
        #expect(Self.info([14 << 3, 1])?.frameCount == 480)         // hybrid FB 10 ms
        #expect(Self.info([15 << 3, 1])?.frameCount == 960)         // hybrid FB 20 ms
        #expect(Self.info([16 << 3, 1])?.frameCount == 120)         // CELT 2.5 ms
        #expect(Self.info([31 << 3, 1])?.frameCount == 960)         // CELT 20 ms
        #expect(Self.info([31 << 3 | 1, 1, 2])?.frameCount == 1920) // code 1: two equal frames
        #expect(Self.info([31 << 3 | 1, 1]) == nil)                 // code 1 with an odd split
        #expect(Self.info([31 << 3 | 2, 1, 7, 8])?.frameCount == 1920)
        #expect(Self.info([31 << 3 | 2, 5, 7]) == nil)              // code 2: first frame beyond the end
        #expect(Self.info([31 << 3 | 3, 3, 1, 2, 3])?.frameCount == 2880)  // code 3 CBR, three frames
        #expect(Self.info([31 << 3 | 3, 0]) == nil)                 // code 3 with no frames
        #expect(Self.info([31 << 3 | 3, 7, 0, 0, 0, 0, 0, 0, 0]) == nil)  // 7 × 20 ms > 120 ms
        #expect(Self.info([31 << 3 | 3, 0x41, 200, 1]) == nil)      // padding longer than the packet
        #expect(Self.info([31 << 3 | 3, 0x82, 2, 9, 9, 9])?.frameCount == 1920)  // VBR: 2 + 1 bytes
        #expect(Self.info([31 << 3 | 3, 0x82, 9, 1]) == nil)        // VBR length beyond the end
        #expect(Self.info([1 << 3] + [UInt8](repeating: 1, count: 1276)) == nil)  // frame over 1275 bytes
        #expect(Self.info([]) == nil)
        #expect(Self.info([15 << 3])?.isDTX == true)
        #expect(Self.info([15 << 3, 0])?.isDTX == false)
        #expect(Self.info([16 << 3, 0xFF])?.hasFEC == false)        // CELT never carries LBRR
    }

    @Test("The LBRR flag read from the packet agrees with libopus: FEC decoding differs from concealment exactly when it is set")
    func lbrrFlagMatchesLibopus() throws {
        let packets = try TestSender.encode(Array(TestAudio.speech.prefix(TestAudio.frames(ms: 2000))))
        var withFlag = 0
        for index in 10..<packets.count {
            var fec = try OpusDecoder(channels: 1), plc = try OpusDecoder(channels: 1)
            for packet in packets[(index - 6)..<(index - 1)] {
                let frame = EncodedFrame(codec: .opus, data: packet.payload)
                _ = try fec.decode(frame)
                _ = try plc.decode(frame)
            }
            let next = EncodedFrame(codec: .opus, data: packets[index].payload)
            let recovered = try fec.decodeFEC(from: next, durationMs: 20, timestamp: .zero).samples
            let concealed = try plc.concealLoss(durationMs: 20, timestamp: .zero).samples
            let flagged = Self.info(packets[index].payload)?.hasFEC ?? false
            #expect((recovered != concealed) == flagged, "packet \(index)")
            if flagged { withFlag += 1 }
        }
        #expect(withFlag > 30)
    }

    /// A queue holding a 440 Hz sine, with 20 ms already played.
    static func sineQueue(amplitude: Double) -> AudioJitterBufferSampleQueue {
        var queue = AudioJitterBufferSampleQueue(channels: 1, capacity: 8192, historyLimit: 744)
        let tone = TestAudio.tone(frequency: 440, amplitude: amplitude, frameCount: 4800)
        let target = queue.append(frames: tone.count, kind: .decoded, arrival: .zero)
        tone.withUnsafeBufferPointer { _ = target.update(fromContentsOf: $0) }
        var played = [Int16](repeating: 0, count: 960)
        _ = played.withUnsafeMutableBufferPointer { queue.pop(960, into: $0, now: .zero) }
        return queue
    }

    /// Played history and unplayed frames of `queue`, as one array.
    static func contents(_ queue: borrowing AudioJitterBufferSampleQueue) -> [Int16] {
        Array(queue.frames(from: -queue.history, count: queue.history + queue.count))
    }

    @Test("Accelerate removes whole periods of a sine and preemptive expand inserts them, each join within 1.2 × the sine's slope")
    func timeStretchOnSine() {
        let amplitude = 0.5
        let slope = amplitude * 32767 * 2 * Double.pi * 440 / 48_000
        var stretcher = TimeStretcher()

        var queue = Self.sineQueue(amplitude: amplitude)
        let before = queue.count
        let window = queue.frames(from: 0, count: 1464)
        let removed = stretcher.period(in: UnsafeBufferPointer(window), channels: 1, origin: 0, mode: .accelerate, maximum: 720)
        #expect(removed != nil)
        if let removed {
            queue.removePeriod(removed)
            #expect(queue.count == before - removed)
            let periods = Double(removed) * 440 / 48_000
            #expect(abs(periods - periods.rounded()) < 0.02, "\(removed) samples is \(periods) periods")
            let samples = Self.contents(queue)
            #expect(Double(TestAudio.largestStep(samples, 0..<samples.count)) <= 1.2 * slope)
        }

        queue = Self.sineQueue(amplitude: amplitude)
        let history = min(queue.history, 744)
        let expandWindow = queue.frames(from: -history, count: history + 744)
        let inserted = stretcher.period(in: UnsafeBufferPointer(expandWindow), channels: 1, origin: history,
                                        mode: .expand, maximum: 720)
        #expect(inserted != nil)
        if let inserted {
            queue.insertPeriod(inserted)
            #expect(queue.count == 3840 + inserted)
            let samples = Self.contents(queue)
            #expect(Double(TestAudio.largestStep(samples, 0..<samples.count)) <= 1.2 * slope)
        }
    }

    @Test("Loud noise has no period to cut; quiet noise may be stretched anywhere")
    func timeStretchRefusesLoudNoise() {
        var random = SeededRandom(seed: 4)
        var stretcher = TimeStretcher()
        for (level, expected) in [(8000.0, false), (20.0, true)] {
            let noise = (0..<1464).map { _ in Int16(random.nextGaussian(deviation: level)) }
            let found = noise.withUnsafeBufferPointer {
                stretcher.period(in: $0, channels: 1, origin: 0, mode: .accelerate, maximum: 720)
            }
            #expect((found != nil) == expected, "noise at \(level)")
        }
    }

    @Test("The delay estimator's quantile covers the jitter and forgets it")
    func delayEstimator() {
        var estimator = DelayEstimator(maximumDelay: .milliseconds(500), quantile: 0.95, halfLife: .seconds(2), window: .seconds(2))
        var random = SeededRandom(seed: 8)
        for index in 0..<200 {
            estimator.update(timestamp: Int64(index * 960), arrival: .milliseconds(Int64(index * 20 + 40)), frameCount: 960)
        }
        #expect(estimator.quantileDelay == 1000)
        for index in 200..<700 {
            let jitter = random.nextUnit() * 30_000
            estimator.update(timestamp: Int64(index * 960),
                             arrival: Timestamp(microseconds: Int64(index * 20_000 + 40_000) + Int64(jitter)), frameCount: 960)
        }
        #expect(estimator.quantileDelay >= 27_000 && estimator.quantileDelay <= 31_000, "\(estimator.quantileDelay) µs")
        for index in 700..<1500 {
            estimator.update(timestamp: Int64(index * 960), arrival: .milliseconds(Int64(index * 20 + 40)), frameCount: 960)
        }
        #expect(estimator.quantileDelay <= 2000, "\(estimator.quantileDelay) µs")
    }

    @Test("The sequence tracker finds duplicates across the 16-bit wrap and counts loss per epoch")
    func sequenceTracker() {
        var tracker = AudioJitterBufferSequenceTracker()
        var unwrapper = SequenceUnwrapper()
        for raw in [UInt16(65_534), 65_535, 0, 2, 1, 1, 65_535] { _ = tracker.record(unwrapper.unwrap(raw)) }
        #expect(tracker.received == 5 && tracker.expected == 5 && tracker.lost == 0)
        let recordedTen = tracker.record(unwrapper.unwrap(10))
        #expect(recordedTen)
        #expect(tracker.lost == 7)
        tracker.closeEpoch()
        let recorded = (tracker.record(500), tracker.record(502), tracker.record(500))
        #expect(recorded == (true, true, false))
        #expect(tracker.expected == 16 && tracker.lost == 8)
    }

    @Test("Comfort noise sits at the floor over silence and follows the level and tilt of a background")
    func comfortNoise() {
        var generator = ComfortNoiseGenerator(floor: -70, ceiling: -40, seed: 1)
        let zeros = [Int16](repeating: 0, count: 480)
        zeros.withUnsafeBufferPointer { generator.analyze($0, channels: 1) }
        var output = [Int16](repeating: 0, count: 4800)
        output.withUnsafeMutableBufferPointer { generator.generate(into: $0, channels: 1) }
        let floorDB = 20 * log10(TestAudio.rms(output, 0..<output.count))
        #expect(abs(floorDB + 70) < 1.5, "floor at \(floorDB) dBov")

        // After two seconds of it (the silence leaves the one-second minimum), a low-pass background at about −50 dBov: x[n] = 0.9·x[n−1] + e.
        var random = SeededRandom(seed: 2)
        var previous = 0.0
        let background = (0..<96_000).map { _ -> Int16 in
            previous = 0.9 * previous + random.nextGaussian(deviation: 45)
            return Int16(previous)
        }
        for block in 0..<200 {
            background[(block * 480)..<((block + 1) * 480)].withUnsafeBufferPointer { generator.analyze($0, channels: 1) }
        }
        output.withUnsafeMutableBufferPointer { generator.generate(into: $0, channels: 1) }
        let levelDB = 20 * log10(TestAudio.rms(output, 480..<output.count))
        let backgroundDB = 20 * log10(TestAudio.rms(background, 0..<background.count))
        var lagOne = 0.0, energy = 0.0
        for index in 481..<output.count {
            lagOne += Double(output[index]) * Double(output[index - 1])
            energy += Double(output[index]) * Double(output[index])
        }
        #expect(abs(levelDB - backgroundDB) < 3, "noise \(levelDB) dBov for a background of \(backgroundDB) dBov")
        #expect(lagOne / energy > 0.7, "lag-1 correlation \(lagOne / energy)")
    }
}


@Suite("Audio jitter buffer: RTP input")
struct AudioJitterRTPInputTests {
    @Test("Packets inserted as parsed RTP play like packets inserted by fields; padding is not payload")
    func rtpPacketView() throws {
        let packets = try TestSender.encode(Array(TestAudio.speech.prefix(TestAudio.frames(ms: 600))))
        var byFields = try AudioJitterBuffer()
        var byView = try AudioJitterBuffer()
        var outputs: ([Int16], [Int16]) = ([], [])
        for (index, packet) in packets.enumerated() {
            let arrival = Timestamp.milliseconds(Int64(index * 20 + 40))
            byFields.insert(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.rtpTimestamp, payload: packet.payload,
                            arrival: arrival)
            // Version 2 with padding, payload type 111, then 3 bytes of padding.
            var bytes: [UInt8] = [0xA0, 111, UInt8(packet.sequenceNumber >> 8), UInt8(packet.sequenceNumber & 0xFF)]
            bytes += withUnsafeBytes(of: packet.rtpTimestamp.bigEndian, Array.init) + [0, 0, 0x12, 0x34]
            bytes += packet.payload + [0, 0, 3]
            let outcome = try RTPPacketView.withView(of: bytes) { view in byView.insert(view, arrival: arrival) }
            #expect(outcome == .accepted)
            outputs.0 += byFields.pull(at: arrival).samples
            outputs.1 += byView.pull(at: arrival).samples
        }
        #expect(outputs.0 == outputs.1)
        #expect(byView.statistics.packetsUndecodable == 0 && byView.statistics.jitterBufferEmittedCount > 0)
    }
}
