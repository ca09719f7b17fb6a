#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The C maths functions the package needs, in one place: without it each module that
/// wants `pow` or `exp2` imports the C library itself (or Foundation) and keeps its own
/// shim, and none of them may expose the C library to its clients.
package enum Math {
    /// sin x.
    @inline(__always) package static func sine(_ x: Double) -> Double { sin(x) }
    /// cos x.
    @inline(__always) package static func cosine(_ x: Double) -> Double { cos(x) }
    /// log₁₀ x.
    @inline(__always) package static func log10Of(_ x: Double) -> Double { log10(x) }
    /// base^exponent.
    @inline(__always) package static func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }
    /// 10^x.
    @inline(__always) package static func powerOf10(_ x: Double) -> Double { pow(10, x) }
    /// e^x.
    @inline(__always) package static func exponential(_ x: Double) -> Double { exp(x) }
    /// 2^x.
    @inline(__always) package static func exponential2(_ x: Double) -> Double { exp2(x) }
}
