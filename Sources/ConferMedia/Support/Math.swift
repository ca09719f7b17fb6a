#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The C maths functions synthetic sources and analysis need, without importing
/// Foundation into ConferMedia or exposing the C library to its clients.
enum Math {
    @inline(__always) static func sine(_ x: Double) -> Double { sin(x) }
    @inline(__always) static func cosine(_ x: Double) -> Double { cos(x) }
    @inline(__always) static func log10Of(_ x: Double) -> Double { log10(x) }
}
