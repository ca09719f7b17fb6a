public import ConferMedia

/// The RFC 6464 level of a stream, step by step, plain and smoothed.
///
/// ``level`` is the level of the last step alone (what RFC 6464/6465 header extensions
/// carry and what speaking detection reads). ``smoothedLevel`` is for meters in a UI: it
/// follows a louder step at once and falls back with a 200 ms time constant on the signal's
/// power (about 22 dB per second), as a peak meter does, so a level bar neither flickers
/// between syllables nor lingers.
public struct AudioLevelMeter: Hashable, Sendable {
    /// Level of the last step: 0 (0 dBov, loudest) … 127 (−127 dBov or below, silence).
    public private(set) var level: UInt8 = 127
    /// The smoothed level, same scale.
    public private(set) var smoothedLevel: UInt8 = 127
    /// The smoothed mean square, as a fraction of full scale squared.
    private var smoothedPower = 0.0
    private let release: Double

    /// A meter fed once per `step` (10 ms in the mixer), reading silence.
    public init(step: TimeDelta = .milliseconds(10)) {
        // Fraction of the distance to a quieter step closed each step: 1 − e^(−step/200 ms).
        release = 1 - Math.exponential(-max(0, step.seconds) / 0.2)
    }

    /// Feeds one step with this mean square (sum of squares over sample count, in full-scale
    /// units); returns the step's ``level``.
    @discardableResult
    public mutating func update(meanSquare: Double) -> UInt8 {
        let power = meanSquare.isFinite ? max(0, meanSquare) : 0
        level = AudioAnalysis.audioLevel(rms: power.squareRoot())
        smoothedPower = power >= smoothedPower ? power : smoothedPower + (power - smoothedPower) * release
        // Below −130 dBov the level reads 127 anyway; flush so the value does not go subnormal.
        if smoothedPower < 1e-13 { smoothedPower = 0 }
        smoothedLevel = AudioAnalysis.audioLevel(rms: smoothedPower.squareRoot())
        return level
    }

    /// Feeds one step of interleaved samples (every channel counts); returns its ``level``.
    @discardableResult
    public mutating func update(_ samples: UnsafeBufferPointer<Int16>) -> UInt8 {
        update(meanSquare: samples.isEmpty ? 0 : AudioAnalysis.energy(samples) / Double(samples.count))
    }
}
