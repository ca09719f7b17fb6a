/// Integer rescaling for timestamps taken from file headers, and rates as the fractions
/// headers and encoders take.
///
/// Header values are hostile input: `value × multiplier` can overflow Int64, which would
/// trap. These helpers fall back to floating point and clamp instead.
package enum MediaMath {
    /// `value × multiplier / divisor`, rounded toward zero, clamped to Int64's range.
    /// `divisor` must not be zero.
    package static func rescale(_ value: Int64, _ multiplier: Int64, _ divisor: Int64) -> Int64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        if !overflow { return product / divisor }
        let exact = (Double(value) * Double(multiplier) / Double(divisor)).rounded(.towardZero)
        if exact >= 9.2e18 { return .max }
        if exact <= -9.2e18 { return .min }
        return Int64(exact)
    }

    /// `value` to the thousandth as a reduced fraction, as an encoder or a container that
    /// wants a frame rate's numerator and denominator takes it (29.97 is 2997/100).
    package static func thousandthsFraction(_ value: Double) -> (numerator: Int, denominator: Int) {
        let numerator = Int((value * 1000).rounded())
        var a = numerator, b = 1000
        while b != 0 { (a, b) = (b, a % b) }
        return (numerator / a, 1000 / a)
    }

    /// The time of tick `ticks` of a clock whose tick lasts `numerator / denominator` seconds.
    static func timestamp(ticks: Int64, numerator: Int64, denominator: Int64) -> Timestamp {
        Timestamp(microseconds: rescale(ticks, numerator &* 1_000_000, denominator))
    }
}
