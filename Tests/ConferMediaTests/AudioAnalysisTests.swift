import Foundation
import Testing
@testable import ConferMedia

@Suite struct AudioAnalysisTests {
    static func sine(_ frequency: Double, amplitude: Double, count: Int, phase: Double = 0) -> [Int16] {
        (0..<count).map { Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double($0) / 48_000 + phase)).rounded()) }
    }

    @Test func rmsAndLevels() {
        let square = [Int16](repeating: 0, count: 480).enumerated().map { $0.offset % 2 == 0 ? Int16.max : Int16.min }
        #expect(abs(AudioAnalysis.rms(square) - 1) < 0.001)
        #expect(AudioAnalysis.audioLevel(rms: AudioAnalysis.rms(square)) == 0)
        let sine = Self.sine(1000, amplitude: 1, count: 4800)
        #expect(abs(AudioAnalysis.dBov(rms: AudioAnalysis.rms(sine)) + 3.01) < 0.05)
        #expect(AudioAnalysis.audioLevel(rms: AudioAnalysis.rms(sine)) == 3)
        let quiet = Self.sine(1000, amplitude: 0.01, count: 4800)   // −40 dBFS peak, −43 dBov
        #expect(AudioAnalysis.audioLevel(rms: AudioAnalysis.rms(quiet)) == 43)
        #expect(AudioAnalysis.audioLevel(rms: 0) == 127)
        #expect(AudioAnalysis.audioLevel(rms: 1e-9) == 127)
        #expect(AudioAnalysis.audioLevel(AudioFrame(silenceOf: 480, channels: 2)) == 127)
        #expect(AudioAnalysis.dBov(rms: 0) == -.infinity)
        #expect(abs([Int16](repeating: 16_384, count: 4).withUnsafeBufferPointer { AudioAnalysis.energy($0) } - 1) < 1e-12)
    }

    @Test func perChannelMeasurements() {
        // Left: a 500 Hz tone; right: silence.
        let tone = Self.sine(500, amplitude: 0.5, count: 960)
        var interleaved: [Int16] = []
        for s in tone { interleaved += [s, 0] }
        let frame = AudioFrame(samples: interleaved, channels: 2)
        #expect(abs(AudioAnalysis.rms(frame, channel: 0) - 0.5 / 2.squareRoot()) < 0.002)
        #expect(AudioAnalysis.rms(frame, channel: 1) == 0)
        #expect(abs(AudioAnalysis.rms(frame) - 0.25) < 0.002)
        #expect(abs(AudioAnalysis.goertzelPower(frame, frequency: 500, channel: 0) - 0.125) < 0.002)
        #expect(AudioAnalysis.goertzelPower(frame, frequency: 500, channel: 1) == 0)
    }

    @Test func goertzelPicksOutOneToneOfAMix() {
        // 100 ms holds whole cycles of both tones, so neither leaks into the other's measurement.
        let a = Self.sine(300, amplitude: 0.3, count: 4800), b = Self.sine(420, amplitude: 0.2, count: 4800)
        let mix = zip(a, b).map { $0 &+ $1 }
        #expect(abs(AudioAnalysis.goertzelPower(mix, frequency: 300) - 0.045) < 0.002)
        #expect(abs(AudioAnalysis.goertzelPower(mix, frequency: 420) - 0.02) < 0.002)
        #expect(AudioAnalysis.goertzelPower(mix, frequency: 540) < 0.001)
        #expect(AudioAnalysis.goertzelPower([], frequency: 300) == 0)
    }

    @Test func crossCorrelationFindsTheDelay() {
        var random = SeededRandom(seed: 77)
        let reference = (0..<4800).map { _ in Int16(random.nextGaussian(deviation: 4000).rounded()) }
        for delay in [0, 37, -12, 200] {
            // The signal is the reference delayed by `delay` samples, at half gain, with a little noise.
            let signal = (0..<4800).map { i -> Int16 in
                let j = i - delay
                let base = j >= 0 && j < reference.count ? Int(reference[j]) / 2 : 0
                return Int16(clamping: base + Int(random.nextGaussian(deviation: 100).rounded()))
            }
            let peak = AudioAnalysis.bestAlignment(reference, signal, maxLag: 240)
            #expect(peak.lag == delay)
            #expect(peak.coefficient > 0.95, "\(peak)")
        }
        let inverted = reference.map { $0 == .min ? .max : -$0 }
        #expect(reference.withUnsafeBufferPointer { r in inverted.withUnsafeBufferPointer { AudioAnalysis.normalizedCrossCorrelation(r, $0, lag: 0) } } < -0.99)
        let silence = [Int16](repeating: 0, count: 100)
        #expect(AudioAnalysis.bestAlignment(silence, silence, maxLag: 5).coefficient == 0)
    }
}
