#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The C maths the estimators need, without importing Foundation into ConferCongestion.
enum Math {
    @inline(__always) static func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }
}
