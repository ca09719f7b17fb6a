#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An instant on the session layer's clock: milliseconds since the Unix epoch on the wall
/// clock, or since any chosen origin in virtual time. Tokens compare it at whole seconds.
public struct SessionTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since the clock's origin.
    public var milliseconds: Int64

    /// An instant `milliseconds` after the origin.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// An instant `seconds` after the origin, held at the clock's bounds as its sums are
    /// (NaN: the origin).
    public static func seconds(_ seconds: Double) -> SessionTime {
        let milliseconds = (seconds * 1000).rounded()
        if milliseconds.isNaN { return SessionTime(milliseconds: 0) }
        return SessionTime(milliseconds: milliseconds >= 0x1p63 ? .max : milliseconds < -0x1p63 ? .min : Int64(milliseconds))
    }

    /// Whole seconds since the origin, rounded down (JWT's `nbf`/`exp` resolution).
    public var wholeSeconds: Int64 {
        let (seconds, rest) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return rest < 0 ? seconds - 1 : seconds
    }

    /// The wall clock now.
    public static func now() -> SessionTime {
        let elapsed = ContinuousClock.now // monotonic, so only the anchor reads the calendar
        return WallAnchor.shared.time(at: elapsed)
    }

    public static func < (lhs: SessionTime, rhs: SessionTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `time` moved on by `duration`; past the end of the clock it stays at the end (a token
    /// that "never" expires is as far ahead as an instant can be, not a trap).
    public static func + (time: SessionTime, duration: Duration) -> SessionTime {
        SessionTime(milliseconds: time.milliseconds.saturatingSum(duration.sessionMilliseconds))
    }

    /// `time` moved back by `duration`, held at the clock's bounds as `+` is.
    public static func - (time: SessionTime, duration: Duration) -> SessionTime {
        SessionTime(milliseconds: time.milliseconds.saturatingDifference(duration.sessionMilliseconds))
    }

    /// The duration from `rhs` to `lhs`.
    public static func - (lhs: SessionTime, rhs: SessionTime) -> Duration {
        .milliseconds(lhs.milliseconds.saturatingDifference(rhs.milliseconds))
    }

    public var description: String { "\(Double(milliseconds) / 1000) s" }

    public init(from decoder: any Decoder) throws {
        milliseconds = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(milliseconds)
    }
}

extension Duration {
    /// Whole milliseconds, rounded down, and held within Int64 for the longest durations.
    package var sessionMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        return milliseconds.saturatingSum(attoseconds / 1_000_000_000_000_000)
    }
}

/// Reads the calendar once and follows the monotonic clock from there, so that a
/// stepped system clock cannot make a room's timers jump.
private final class WallAnchor: Sendable {
    static let shared = WallAnchor()
    private let monotonic = ContinuousClock.now
    private let wall: Int64

    private init() {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        wall = Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    func time(at instant: ContinuousClock.Instant) -> SessionTime {
        SessionTime(milliseconds: wall + (instant - monotonic).sessionMilliseconds)
    }
}

extension Int64 {
    /// `self + other`, held at `.max` or `.min` where the sum would overflow.
    package func saturatingSum(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at `.max` or `.min` where the difference would overflow.
    package func saturatingDifference(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
