/// Measurements on 16-bit PCM that tests and stats across Confer share: loudness,
/// RFC 6464 audio level, the strength of one frequency, and alignment by
/// cross-correlation.
///
/// Sample values are read as fractions of full scale (divided by 32 768), so a
/// full-scale square wave has RMS 1 (0 dBov) and a full-scale sine RMS 0.707 (−3 dBov).
/// Functions take interleaved samples with a channel count; `channel: nil` reads every
/// sample of every channel, a number reads that channel only. None allocates.
public enum AudioAnalysis {
    /// The value of one full-scale step: samples are divided by this.
    public static let fullScale = 32_768.0

    // MARK: Loudness

    /// Sum of squared sample values (as fractions of full scale).
    public static func energy(_ samples: UnsafeBufferPointer<Int16>, channels: Int = 1, channel: Int? = nil) -> Double {
        var sum = 0.0
        forEach(samples, channels: channels, channel: channel) { x in sum += Double(x) * Double(x) }
        return sum / (fullScale * fullScale)
    }

    /// Root mean square of the samples, as a fraction of full scale (0 for no samples).
    public static func rms(_ samples: UnsafeBufferPointer<Int16>, channels: Int = 1, channel: Int? = nil) -> Double {
        let n = count(samples, channels: channels, channel: channel)
        return n == 0 ? 0 : (energy(samples, channels: channels, channel: channel) / Double(n)).squareRoot()
    }

    /// Root mean square of `frame` (one channel, or all), as a fraction of full scale.
    public static func rms(_ frame: AudioFrame, channel: Int? = nil) -> Double {
        frame.samples.withUnsafeBufferPointer { rms($0, channels: frame.channels, channel: channel) }
    }

    /// Root mean square of mono `samples`, as a fraction of full scale.
    public static func rms(_ samples: [Int16]) -> Double {
        samples.withUnsafeBufferPointer { rms($0) }
    }

    /// The level in dBov of a signal with this RMS (0 at full scale, negative below;
    /// −∞ for silence).
    public static func dBov(rms: Double) -> Double {
        rms > 0 ? 20 * Math.log10Of(rms) : -.infinity
    }

    /// The RFC 6464 audio level of a signal with this RMS: −dBov rounded and clamped to
    /// 0 (loudest) … 127 (silence).
    public static func audioLevel(rms: Double) -> UInt8 {
        let minusDBov = -dBov(rms: rms)
        guard minusDBov.isFinite else { return 127 }
        return UInt8(max(0, min(127, minusDBov.rounded())))
    }

    /// The RFC 6464 audio level of `frame` over all its channels.
    public static func audioLevel(_ frame: AudioFrame) -> UInt8 { audioLevel(rms: rms(frame)) }

    // MARK: Tones

    /// The power of the samples at `frequency` Hz, by the Goertzel algorithm, scaled so a
    /// sine of amplitude A (fraction of full scale) at that frequency measures A²/2 — its
    /// mean square, the same units as `rms²`. Leakage from a tone f Hz away falls off as
    /// the window gets longer than 1/f seconds.
    public static func goertzelPower(_ samples: UnsafeBufferPointer<Int16>, frequency: Double,
                                     sampleRate: Int = conferSampleRate, channels: Int = 1, channel: Int? = nil) -> Double {
        let n = count(samples, channels: channels, channel: channel)
        guard n > 0 else { return 0 }
        let coefficient = 2 * Math.cosine(2 * Double.pi * frequency / Double(sampleRate))
        var s1 = 0.0, s2 = 0.0
        forEach(samples, channels: channels, channel: channel) { x in
            let s0 = Double(x) / fullScale + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let magnitudeSquared = max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)
        return 2 * magnitudeSquared / (Double(n) * Double(n))
    }

    /// ``goertzelPower(_:frequency:sampleRate:channels:channel:)`` of `frame`.
    public static func goertzelPower(_ frame: AudioFrame, frequency: Double, channel: Int? = nil) -> Double {
        frame.samples.withUnsafeBufferPointer {
            goertzelPower($0, frequency: frequency, channels: frame.channels, channel: channel)
        }
    }

    /// ``goertzelPower(_:frequency:sampleRate:channels:channel:)`` of mono `samples`.
    public static func goertzelPower(_ samples: [Int16], frequency: Double) -> Double {
        samples.withUnsafeBufferPointer { goertzelPower($0, frequency: frequency) }
    }

    // MARK: Alignment

    /// The best alignment of two signals found by cross-correlation.
    public struct CorrelationPeak: Hashable, Sendable, Codable {
        /// How many samples later `signal` carries what `reference` carries: positive when
        /// `signal` is delayed.
        public var lag: Int
        /// The normalised cross-correlation at that lag, −1…1 (1: identical up to gain).
        public var coefficient: Double

        /// A peak at `lag` with `coefficient`.
        public init(lag: Int, coefficient: Double) {
            self.lag = lag
            self.coefficient = coefficient
        }
    }

    /// The normalised cross-correlation of mono `reference[i]` with `signal[i + lag]` over
    /// the samples both cover: Σ r·s / √(Σ r² · Σ s²), or 0 when either part is silent.
    public static func normalizedCrossCorrelation(_ reference: UnsafeBufferPointer<Int16>,
                                                  _ signal: UnsafeBufferPointer<Int16>, lag: Int) -> Double {
        let first = max(0, -lag), end = min(reference.count, signal.count - lag)
        guard end > first else { return 0 }
        var rs = 0.0, rr = 0.0, ss = 0.0
        for i in first..<end {
            let r = Double(reference[i]), s = Double(signal[i + lag])
            rs += r * s
            rr += r * r
            ss += s * s
        }
        guard rr > 0, ss > 0 else { return 0 }
        return rs / (rr * ss).squareRoot()
    }

    /// The lag in `-maxLag...maxLag` where mono `signal` best matches `reference`, by
    /// normalised cross-correlation. Costs O(count × maxLag): keep windows short.
    public static func bestAlignment(_ reference: UnsafeBufferPointer<Int16>, _ signal: UnsafeBufferPointer<Int16>,
                                     maxLag: Int) -> CorrelationPeak {
        var best = CorrelationPeak(lag: 0, coefficient: -.infinity)
        for lag in -max(0, maxLag)...max(0, maxLag) {
            let c = normalizedCrossCorrelation(reference, signal, lag: lag)
            if c > best.coefficient { best = CorrelationPeak(lag: lag, coefficient: c) }
        }
        return best
    }

    /// ``bestAlignment(_:_:maxLag:)`` of mono sample arrays.
    public static func bestAlignment(_ reference: [Int16], _ signal: [Int16], maxLag: Int) -> CorrelationPeak {
        reference.withUnsafeBufferPointer { r in
            signal.withUnsafeBufferPointer { s in bestAlignment(r, s, maxLag: maxLag) }
        }
    }

    // MARK: Channel access

    private static func count(_ samples: UnsafeBufferPointer<Int16>, channels: Int, channel: Int?) -> Int {
        let frames = samples.count / max(1, channels)
        return channel == nil ? frames * max(1, channels) : frames
    }

    @inline(__always)
    private static func forEach(_ samples: UnsafeBufferPointer<Int16>, channels: Int, channel: Int?,
                                _ body: (Int16) -> Void) {
        let channels = max(1, channels)
        let frames = samples.count / channels
        if let channel {
            precondition(channel >= 0 && channel < channels, "channel \(channel) of \(channels)")
            for i in 0..<frames { body(samples[i * channels + channel]) }
        } else {
            for i in 0..<(frames * channels) { body(samples[i]) }
        }
    }
}
