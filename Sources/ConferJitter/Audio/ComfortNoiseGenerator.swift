internal import ConferMedia

/// Comfort noise: low-level noise shaped like the background of the decoded audio, played
/// when the sender stops sending (DTX) and as long concealment fades out, so the listener
/// hears the room go on rather than dead silence or a buzzing concealment.
///
/// A deliberately simple model: the background level is the minimum of the 10 ms block
/// energies of the last second (minimum statistics: speech rarely fills a whole second,
/// so the minimum is the noise between words, and it follows a louder background within
/// a second), and its spectral shape is a 4th-order autocorrelation averaged over blocks
/// near that minimum. Generation runs uniform
/// white noise through the matching all-pole (LPC) filter, scaled so the output has the
/// background's RMS, clamped between a floor (so it is never digital zero) and a ceiling
/// (so a stream without pauses cannot turn its tone into loud noise).
struct ComfortNoiseGenerator {
    static let order = 4
    /// Blocks the minimum is taken over: one second of 10 ms blocks.
    private static let historyLength = 100

    /// Background mean square in sample units², negative before any audio.
    private var power = -1.0
    /// Recent block energies, a ring.
    private var energies: [Double]
    private var energyIndex = 0
    private var energyCount = 0
    /// Normalised autocorrelation r[0...order] of the background (r[0] = 1).
    private var shape: [Double]
    private var coefficients: [Double]
    private var predictionError = 1.0
    private var filterState: [Double]
    private var isDirty = false
    private var random: SeededRandom
    private let floorRMS: Double
    private let ceilingRMS: Double

    /// A generator whose level stays between `floor` and `ceiling` dBov.
    init(floor: Double, ceiling: Double, seed: UInt64) {
        shape = [1] + Array(repeating: 0, count: Self.order)
        energies = Array(repeating: 0, count: Self.historyLength)
        coefficients = Array(repeating: 0, count: Self.order)
        filterState = Array(repeating: 0, count: Self.order)
        random = SeededRandom(seed: seed)
        floorRMS = Self.sampleRMS(dBov: floor)
        ceilingRMS = Self.sampleRMS(dBov: ceiling)
    }

    /// The RMS, in sample units, the noise is generated at now.
    var rms: Double { power < 0 ? floorRMS : min(max(power.squareRoot(), floorRMS), ceilingRMS) }

    /// Learns from one block (up to 10 ms) of decoded audio.
    mutating func analyze(_ samples: UnsafeBufferPointer<Int16>, channels: Int) {
        let frames = samples.count / channels
        guard frames > Self.order else { return }
        var r = (0.0, 0.0, 0.0, 0.0, 0.0)
        var previous = (0.0, 0.0, 0.0, 0.0)
        let scale = 1 / Double(channels)
        for frame in 0..<frames {
            var x = 0.0
            for channel in 0..<channels { x += Double(samples[frame * channels + channel]) }
            x *= scale
            r.0 += x * x
            r.1 += x * previous.0
            r.2 += x * previous.1
            r.3 += x * previous.2
            r.4 += x * previous.3
            previous = (x, previous.0, previous.1, previous.2)
        }
        let energy = r.0 / Double(frames)
        energies[energyIndex] = energy
        energyIndex = (energyIndex + 1) % Self.historyLength
        energyCount = min(energyCount + 1, Self.historyLength)
        power = energy
        for index in 0..<energyCount { power = min(power, energies[index]) }
        guard r.0 > 0, energy <= 2 * power else { return }
        shape[1] = 0.7 * shape[1] + 0.3 * r.1 / r.0
        shape[2] = 0.7 * shape[2] + 0.3 * r.2 / r.0
        shape[3] = 0.7 * shape[3] + 0.3 * r.3 / r.0
        shape[4] = 0.7 * shape[4] + 0.3 * r.4 / r.0
        isDirty = true
    }

    /// Fills `output` (interleaved; every channel gets the same noise) with comfort noise.
    mutating func generate(into output: UnsafeMutableBufferPointer<Int16>, channels: Int) {
        if isDirty { updateFilter() }
        // Uniform noise of unit variance, shaped by the all-pole filter whose prediction
        // error is `predictionError`: the output then has variance excitation² / error.
        let excitation = rms * predictionError.squareRoot() * 3.0.squareRoot()
        let frames = output.count / channels
        for frame in 0..<frames {
            let uniform = Double(random.next() >> 11) * 0x1.0p-52 - 1
            var y = excitation * uniform
            for k in 0..<Self.order { y += coefficients[k] * filterState[k] }
            if !(abs(y) < 1e6) {  // also catches NaN: restart the filter rather than blow up
                for k in 0..<Self.order { filterState[k] = 0; coefficients[k] = 0 }
                predictionError = 1
                y = 0
            }
            for k in stride(from: Self.order - 1, to: 0, by: -1) { filterState[k] = filterState[k - 1] }
            filterState[0] = y
            let sample = Int16(clamping: Int(y.rounded()))
            for channel in 0..<channels { output[frame * channels + channel] = sample }
        }
    }

    /// Levinson–Durbin on the background shape, in place, with a little white noise added
    /// (r[0] raised by 0.1 %) so a pure tone cannot make the filter ring.
    private mutating func updateFilter() {
        isDirty = false
        for k in 0..<Self.order { coefficients[k] = 0 }
        var error = shape[0] * 1.001
        for i in 0..<Self.order {
            var accumulator = shape[i + 1]
            for j in 0..<i { accumulator -= coefficients[j] * shape[i - j] }
            let reflection = accumulator / error
            guard abs(reflection) < 1 else { break }
            // a[j] -= k·a[i−1−j] for j < i, pairwise from both ends so each old value is read once.
            var low = 0, high = i - 1
            while low < high {
                let a = coefficients[low], b = coefficients[high]
                coefficients[low] = a - reflection * b
                coefficients[high] = b - reflection * a
                low += 1
                high -= 1
            }
            if low == high { coefficients[low] -= reflection * coefficients[low] }
            coefficients[i] = reflection
            error *= 1 - reflection * reflection
        }
        predictionError = max(error / shape[0], 1e-4)
    }

    private static func sampleRMS(dBov: Double) -> Double {
        // 10^(dB/20) without Foundation: exp2(dB · log2(10) / 20).
        32_768 * Math.exponential2(dBov * 3.321928094887362 / 20)
    }
}

