import ConferMedia
import Foundation

/// Seeded synthetic audio for codec tests, written here because the shared synthetic
/// sources are being written in parallel.
enum SyntheticAudio {
    /// Interleaved samples of 440 Hz + 1 kHz at −10 dBFS each; the right channel has
    /// different phases so the channels are not identical.
    static func toneMix(frameCount: Int, channels: Int) -> [Int16] {
        var samples = [Int16](repeating: 0, count: frameCount * channels)
        for n in 0..<frameCount {
            let t = Double(n) / Double(conferSampleRate)
            for c in 0..<channels {
                let phase = Double(c) * 0.7
                let value = 0.3 * sin(2 * .pi * 440 * t + phase) + 0.3 * sin(2 * .pi * 1000 * t + 2 * phase)
                samples[n * channels + c] = Int16(value * 32767 * 0.9)
            }
        }
        return samples
    }

    /// Mono "speech": a voiced source whose pitch glides between 100 and 220 Hz, shaped by
    /// three formants that move, in syllables of about 200 ms with short gaps, over a seeded
    /// noise floor (the unvoiced part).
    static func speechLike(frameCount: Int, seed: UInt64 = 7) -> [Int16] {
        var random = SeededRandom(seed: seed)
        var samples = [Int16](repeating: 0, count: frameCount)
        var phase = 0.0
        for n in 0..<frameCount {
            let t = Double(n) / Double(conferSampleRate)
            let f0 = 160 + 60 * sin(2 * .pi * 1.3 * t) + 20 * sin(2 * .pi * 5.1 * t)
            phase += 2 * .pi * f0 / Double(conferSampleRate)
            let formants = [600 + 250 * sin(2 * .pi * 2.1 * t), 1400 + 500 * sin(2 * .pi * 1.7 * t + 1), 2600.0]
            var voiced = 0.0
            for harmonic in 1...24 {
                let frequency = Double(harmonic) * f0
                guard frequency < 4500 else { break }
                var gain = 0.0
                for formant in formants {
                    let distance = (frequency - formant) / 180
                    gain += exp(-distance * distance)
                }
                voiced += (gain + 0.05) / Double(harmonic).squareRoot() * sin(Double(harmonic) * phase)
            }
            // Syllables: a raised-sine envelope at 4.5 Hz, clipped so gaps fall silent.
            let envelope = max(0, sin(2 * .pi * 4.5 * t) + 0.3) / 1.3
            let unvoiced = random.nextGaussian(deviation: 0.02)
            samples[n] = Int16(clamping: Int((0.12 * voiced * envelope + unvoiced) * 32767))
        }
        return samples
    }

    /// Normalised cross-correlation of `input` delayed by `lag` with `output`, over output
    /// samples `range` of one channel.
    static func correlation(_ input: [Int16], _ output: [Int16], channels: Int, channel: Int, lag: Int,
                            range: Range<Int>) -> Double {
        var cross = 0.0, inputEnergy = 0.0, outputEnergy = 0.0
        for n in range where n - lag >= 0 {
            let x = Double(input[(n - lag) * channels + channel]), y = Double(output[n * channels + channel])
            cross += x * y
            inputEnergy += x * x
            outputEnergy += y * y
        }
        guard inputEnergy > 0, outputEnergy > 0 else { return 0 }
        return cross / (inputEnergy * outputEnergy).squareRoot()
    }

    /// The lag in 0...maxLag (samples) that best aligns channel 0 of `output` with `input`.
    ///
    /// Every lag is scored on the short `probe` range; lags scoring within 0.05 of the best
    /// are scored again on all of `range`. Periodic signals need the second pass: for
    /// 440 Hz + 1 kHz a shift of 432 samples (nine 1 kHz periods, almost four 440 Hz ones)
    /// scores nearly as well as the true delay.
    static func bestLag(_ input: [Int16], _ output: [Int16], channels: Int, maxLag: Int, probe: Range<Int>,
                        range: Range<Int>) -> Int {
        let scores = (0...maxLag).map { correlation(input, output, channels: channels, channel: 0, lag: $0, range: probe) }
        let top = scores.max() ?? 0
        let candidates = scores.indices.filter { scores[$0] >= top - 0.05 }
        return candidates.max { a, b in
            correlation(input, output, channels: channels, channel: 0, lag: a, range: range)
                < correlation(input, output, channels: channels, channel: 0, lag: b, range: range)
        } ?? 0
    }

    /// Sum of squares of one channel over frames `range`.
    static func energy(_ samples: [Int16], channels: Int, channel: Int, range: Range<Int>) -> Double {
        var sum = 0.0
        for n in range { let x = Double(samples[n * channels + channel]); sum += x * x }
        return sum
    }
}
