import ConferMedia
import Testing
@testable import ConferMixer

@Suite struct AudioLevelTests {
    @Test func fullScaleSineIsLevelThreeAndSilenceIs127() throws {
        var room = MixerRoom()
        try room.add(0, tone: ToneSource(index: 0, amplitude: 1, pattern: .continuous))
        try room.add(1, feed: filler { _ in 0 })
        var result = try room.advance()
        for _ in 0..<4 { result = try room.advance() }
        #expect(result.participants.map(\.level) == [3, 127])
        #expect(result.participants.map(\.smoothedLevel) == [3, 127])
        // The mix is limited to −1 dBFS: a sine there is −4 dBov.
        #expect(result.mixLevel == 4)
        #expect(try room.mixer.level(of: 0).level == 3)
    }

    @Test func smoothedLevelRisesAtOnceAndFallsSlowly() throws {
        var room = MixerRoom()
        try room.add(0, feed: filler { n in n < 4_800 ? Int16(n % 2 == 0 ? 16_384 : -16_384) : 0 })
        var levels: [(UInt8, UInt8)] = []
        for _ in 0..<40 {
            let p = try room.advance().participants[0]
            levels.append((p.level, p.smoothedLevel))
        }
        // A half-scale square wave is −6 dBov.
        #expect(levels[0] == (6, 6))
        #expect(levels[9] == (6, 6))
        // Silent from step 10: the plain level drops at once, the smoothed one by ~2.2 dB per 100 ms.
        #expect(levels[10].0 == 127)
        #expect(levels[19].1 == 8)
        #expect(levels[39].1 == 13)
    }

    @Test func meterReadsMeanSquares() {
        var meter = AudioLevelMeter()
        #expect(meter.level == 127 && meter.smoothedLevel == 127)
        #expect(meter.update(meanSquare: 1) == 0)
        #expect(meter.update(meanSquare: 0.5) == 3)
        #expect(meter.smoothedLevel == 0)
        #expect(meter.update(meanSquare: 0) == 127)
        #expect(meter.update(meanSquare: .nan) == 127)
        #expect(meter.update(meanSquare: 1e-20) == 127)
        let samples = [Int16](repeating: 3_277, count: 480)
        #expect(samples.withUnsafeBufferPointer { meter.update($0) } == 20)
    }
}
