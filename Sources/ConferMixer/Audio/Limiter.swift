import ConferMedia

/// Rounding the mixer does per sample, faster than the standard library's.
enum LimiterMath {
    /// `y` rounded to the nearest integer (ties to even), for |y| < 2²²: adding and taking
    /// away 1.5·2²³ leaves no fraction bits. Branch-free and inline, where `rounded()` is a
    /// libm call without SSE4.1; keeps the sign of every result that is not zero.
    @inline(__always) static func roundedToInt32(_ y: Float) -> Int32 {
        Int32((y + 12_582_912) - 12_582_912)
    }
}

/// A look-ahead-free peak limiter on a block of Int32 sums, writing Int16.
///
/// Per sample frame the gain is min(threshold / peak, released gain) (a silent frame's
/// threshold / 0 is +∞, which the min ignores): attack is instant —
/// when a frame's peak times the current gain would pass the threshold, the gain drops to
/// exactly threshold / peak, so no output exceeds the threshold and nothing wraps or
/// hard-clips — and release is exponential towards unity (time constant from the
/// configuration). Both channels of a stereo frame share one gain so the image does not
/// shift. A block whose peak is under the threshold while the gain is at unity is copied
/// exactly: the common case, one extra pass. Conversion to Int16 saturates as a last safety.
struct Limiter: Sendable {
    /// The gain reduction, 1 − gain, kept instead of the gain itself: near unity a Float
    /// gain stalls (the release step falls below its precision), its complement does not.
    private var reduction: Float = 0
    private let threshold: Float
    /// The fraction of the reduction left after one sample frame of release.
    private let decay: Float

    /// The gain applied to the last sample frame, 0 < gain ≤ 1.
    var gain: Float { 1 - reduction }

    init(threshold: Int16, release: TimeDelta) {
        self.threshold = Float(threshold)
        let frames = max(1, release.seconds * Double(conferSampleRate))
        decay = Float(Math.exponential(-1 / frames))
    }

    /// Limits `input` (interleaved, `channels` per frame) into `output` of the same count.
    mutating func process(_ input: UnsafeBufferPointer<Int32>, channels: Int,
                          into output: UnsafeMutableBufferPointer<Int16>) {
        let count = min(input.count, output.count)
        var peak: UInt32 = 0
        for i in 0..<count { peak = max(peak, input[i].magnitude) }
        if reduction == 0, Float(peak) <= threshold {
            for i in 0..<count { output[i] = Int16(clamping: input[i]) }
            return
        }
        // The loop has no data-dependent branches (audio mispredicts every one of them):
        // attack and release are one max, rounding is branch-free, and |x·g| ≤ threshold.
        var d = reduction
        if channels == 2 {
            var frame = 0
            while frame + 2 <= count {
                let peak = Float(max(input[frame].magnitude, input[frame + 1].magnitude))
                d = max(d * decay, 1 - threshold / peak)
                let g = 1 - d
                output[frame] = Int16(clamping: LimiterMath.roundedToInt32(Float(input[frame]) * g))
                output[frame + 1] = Int16(clamping: LimiterMath.roundedToInt32(Float(input[frame + 1]) * g))
                frame += 2
            }
        } else {
            for i in 0..<count {
                d = max(d * decay, 1 - threshold / Float(input[i].magnitude))
                output[i] = Int16(clamping: LimiterMath.roundedToInt32(Float(input[i]) * (1 - d)))
            }
        }
        // Within 10⁻⁵ of unity is unity: lets the exact fast path resume.
        if d < 1e-5 { d = 0 }
        reduction = d
    }
}
