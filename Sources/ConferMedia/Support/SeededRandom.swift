/// A small, fast, seeded pseudo-random generator (SplitMix64).
///
/// Tests, synthetic sources and the network simulator draw from this so a run with the
/// same seed is the same run: no test depends on luck.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0 ..< 1`.
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A normally distributed value (Box–Muller) with the given mean and deviation.
    public mutating func nextGaussian(mean: Double = 0, deviation: Double = 1) -> Double {
        let u1 = max(nextUnit(), .leastNonzeroMagnitude)
        let u2 = nextUnit()
        return mean + deviation * (-2 * _log(u1)).squareRoot() * _cos(2 * .pi * u2)
    }
}

// Glibc's log/cos without importing Foundation into every client of ConferMedia.
@_silgen_name("log") private func _log(_ x: Double) -> Double
@_silgen_name("cos") private func _cos(_ x: Double) -> Double
