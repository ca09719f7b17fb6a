/// Finds the pitch period to cut or repeat when the jitter buffer changes its delay.
///
/// The method is NetEQ's accelerate and preemptive expand: pitch-synchronous removal or
/// insertion of one period with a cross-fade (a one-period special case of WSOLA). It is
/// chosen over general WSOLA because a jitter buffer only ever needs to add or drop a few
/// milliseconds at a time, and one period of a voiced sound is the largest piece that can
/// be dropped or repeated with the waveform lining up on both sides: a linear cross-fade
/// between two segments one period apart then changes neither level nor phase, so there
/// is no gap and no click. Unvoiced or noisy audio is only stretched when it is quiet
/// (where a mismatch is inaudible); loud audio with no period is left alone until it has one.
///
/// The search runs on a mono mix in two passes, as NetEQ's does: a coarse one on 4 kHz
/// block means over periods of 2.5–15 ms (400–67 Hz, covering voice pitch and, for higher
/// tones, a multiple of their period), then a fine one at 48 kHz within one coarse step of
/// the best. Scratch storage is allocated once.
struct TimeStretcher: ~Copyable {
    /// Which change the period is for.
    enum Mode {
        /// Remove a period: unplayed x[0..<T] must match x[T..<2T].
        case accelerate
        /// Insert a period: the last played T frames must match the next T unplayed ones.
        case expand
    }

    /// The shortest period considered: 2.5 ms.
    static let minimumPeriod = 120
    /// The longest period considered: 15 ms.
    static let maximumPeriod = 720
    /// 48 kHz to 4 kHz for the coarse search.
    static let decimation = 12
    /// The normalised correlation a loud segment needs to be cut or repeated.
    static let correlationThreshold: Float = 0.8
    /// Below this RMS (−50 dBov, in sample units) any best period is good enough.
    static let quietRMS: Float = 103.6
    /// The most frames a search reads: a period of history and two of unplayed audio.
    static let maximumWindow = 3 * maximumPeriod + 2 * decimation

    private let mono: UnsafeMutablePointer<Float>
    private let coarse: UnsafeMutablePointer<Float>

    init() {
        mono = .allocate(capacity: Self.maximumWindow)
        mono.initialize(repeating: 0, count: Self.maximumWindow)
        coarse = .allocate(capacity: Self.maximumWindow / Self.decimation + 2)
        coarse.initialize(repeating: 0, count: Self.maximumWindow / Self.decimation + 2)
    }

    deinit {
        mono.deallocate()
        coarse.deallocate()
    }

    /// The period to remove or insert, at most `maximum` frames, in `samples` (interleaved,
    /// `origin` frames of played history followed by unplayed frames); nil when none is
    /// long enough or matches well enough.
    mutating func period(in samples: UnsafeBufferPointer<Int16>, channels: Int, origin: Int,
                         mode: Mode, maximum: Int) -> Int? {
        let frames = min(samples.count / channels, Self.maximumWindow)
        guard origin >= 0, origin <= frames else { return nil }
        let future = frames - origin
        let limit = switch mode {
        case .accelerate: min(maximum, Self.maximumPeriod, future / 2)
        case .expand: min(maximum, Self.maximumPeriod, origin, future)
        }
        guard limit >= Self.minimumPeriod else { return nil }
        let scale = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels { sum += Float(samples[frame * channels + channel]) }
            mono[frame] = sum * scale
        }

        // Coarse pass on block means aligned so that block `before` starts at the origin.
        let step = Self.decimation
        let before = origin / step
        let blocks = before + future / step
        for block in 0..<blocks {
            let base = origin + (block - before) * step
            var sum: Float = 0
            for index in base..<(base + step) { sum += mono[index] }
            coarse[block] = sum / Float(step)
        }
        var bestLag = Self.minimumPeriod / step
        var bestScore = -Float.infinity
        for lag in (Self.minimumPeriod / step)...(limit / step) {
            let first = mode == .accelerate ? before : before - lag
            let score = Self.correlation(coarse + first, coarse + first + lag, count: lag).score
            if score > bestScore {
                bestScore = score
                bestLag = lag
            }
        }

        // Fine pass at full rate around the coarse winner.
        let center = bestLag * step
        var best = 0
        var bestFine = -Float.infinity
        var bestRMS: Float = 0
        for period in max(Self.minimumPeriod, center - step)...min(limit, center + step) {
            let first = mode == .accelerate ? origin : origin - period
            let result = Self.correlation(mono + first, mono + first + period, count: period)
            if result.score > bestFine {
                bestFine = result.score
                best = period
                bestRMS = result.rms
            }
        }
        guard best > 0, bestFine >= Self.correlationThreshold || bestRMS < Self.quietRMS else { return nil }
        return best
    }

    /// Normalised cross-correlation of `count` samples at `a` and `b`, and their joint RMS.
    private static func correlation(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                                    count: Int) -> (score: Float, rms: Float) {
        var ab: Float = 0, aa: Float = 0, bb: Float = 0
        for index in 0..<count {
            let x = a[index], y = b[index]
            ab += x * y
            aa += x * x
            bb += y * y
        }
        let rms = ((aa + bb) / Float(2 * max(count, 1))).squareRoot()
        guard aa > 0, bb > 0 else { return (aa == 0 && bb == 0 ? 1 : 0, rms) }
        return (ab / (aa * bb).squareRoot(), rms)
    }
}
