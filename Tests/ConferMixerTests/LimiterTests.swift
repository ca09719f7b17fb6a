import ConferMedia
import Foundation
import Testing
@testable import ConferMixer

@Suite struct LimiterTests {
    /// Participant `k`'s input at sample `n`: loud in-phase full-scale square waves for the
    /// first 0.5 s (the worst sum four people can make), then quiet in-phase sines.
    static func input(_ n: Int) -> Int16 {
        if n < 24_000 { return (n / 48) % 2 == 0 ? .max : .min }
        return Int16((1_500 * sin(2 * Double.pi * 500 * Double(n) / 48_000)).rounded())
    }

    @Test(arguments: [AudioMixerConfiguration.OutputChannels.mono, .stereo])
    func fullScaleSumsNeverWrapOrOvershootAndTheGainRecovers(_ layout: AudioMixerConfiguration.OutputChannels) throws {
        var room = MixerRoom(configuration: AudioMixerConfiguration(outputChannels: layout))
        for k in 0..<4 { try room.add(k, feed: filler(Self.input)) }
        let channels = layout.count
        var lastGain: Float = 0
        var exactTail = true
        // Counted rather than expected per sample, so a broken limiter reports once, not 10⁵ times.
        var overshoots = 0, signFlips = 0
        var firstProblem: String?
        for step in 0..<150 {
            let result = try room.advance()
            for listener in [0, 1, 2, 3, 99] {
                let contributors = listener == 99 ? 4 : 3
                let out = room.mixer.mix(for: listener).samples
                for i in 0..<out.count {
                    let trueSum = Int32(Self.input(step * 480 + i / channels)) * Int32(contributors)
                    let y = out[i]
                    if y == .min || abs(Int32(y)) > 29_205 { overshoots += 1 }
                    if y != 0 && (y > 0) != (trueSum > 0) { signFlips += 1 }
                    if firstProblem == nil, overshoots + signFlips > 0 {
                        firstProblem = "step \(step) listener \(listener) sample \(i): \(y) for \(trueSum)"
                    }
                    if step >= 140, y != Int16(clamping: trueSum) { exactTail = false }
                }
            }
            if step == 10 { #expect(result.limiterGain < 0.23) }
            lastGain = result.limiterGain
        }
        #expect(overshoots == 0 && signFlips == 0, "\(firstProblem ?? "")")
        // One second after the loud part the gain is back at unity and the quiet sum passes
        // through untouched.
        #expect(lastGain == 1)
        #expect(exactTail)
        #expect(room.mixer.statistics.limitedSteps >= 50 && room.mixer.statistics.limitedSteps < 120)
    }

    @Test func limiterAttacksAtOnceAndReleasesOverTheConfiguredTime() {
        var limiter = Limiter(threshold: 16_384, release: .milliseconds(50))
        var out = [Int16](repeating: 0, count: 480)
        // One loud sample frame: it comes out at exactly the threshold.
        var loud = [Int32](repeating: 0, count: 480)
        loud[100] = 65_536
        loud.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { limiter.process(i, channels: 1, into: $0) } }
        #expect(out[100] == 16_384)
        #expect(abs(limiter.gain - 0.25 * (1 + 0.75 / 0.25 * Float(1 - exp(-379.0 / 2_400)))) < 0.01)
        // After 50 ms of silence the remaining reduction has shrunk by e.
        let quiet = [Int32](repeating: 0, count: 2_400 - 380)
        var sink = [Int16](repeating: 0, count: quiet.count)
        let before = limiter.gain
        quiet.withUnsafeBufferPointer { i in sink.withUnsafeMutableBufferPointer { limiter.process(i, channels: 1, into: $0) } }
        let expected = 1 - (1 - 0.25) * Float(exp(-(2_400.0 - 1) / 2_400))
        #expect(before < expected && abs(limiter.gain - expected) < 0.01, "\(limiter.gain) vs \(expected)")
    }
}
