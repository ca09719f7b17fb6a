/// A point in media time, in microseconds since an arbitrary epoch chosen by a clock.
///
/// Units are types (as in libwebrtc's `Timestamp`/`TimeDelta`): a `Timestamp` minus a
/// `Timestamp` is a `TimeDelta`, and nothing silently mixes milliseconds with ticks.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Microseconds since the clock's epoch.
    public var microseconds: Int64

    /// A timestamp `microseconds` after the epoch.
    public init(microseconds: Int64) { self.microseconds = microseconds }
    /// A timestamp `milliseconds` after the epoch.
    public static func milliseconds(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }
    /// A timestamp `seconds` after the epoch.
    public static func seconds(_ s: Double) -> Timestamp { Timestamp(microseconds: Int64((s * 1_000_000).rounded())) }
    /// The epoch itself.
    public static let zero = Timestamp(microseconds: 0)

    /// Seconds since the epoch.
    public var seconds: Double { Double(microseconds) / 1_000_000 }
    /// Milliseconds since the epoch, rounded toward zero.
    public var milliseconds: Int64 { microseconds / 1000 }

    /// This time in ticks of a clock running at `rate` Hz (for example 90 000 for RTP video).
    public func ticks(rate: Int) -> Int64 { microseconds * Int64(rate) / 1_000_000 }
    /// The time of `ticks` ticks of a clock running at `rate` Hz.
    public static func fromTicks(_ ticks: Int64, rate: Int) -> Timestamp {
        Timestamp(microseconds: ticks * 1_000_000 / Int64(rate))
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
    public static func + (a: Timestamp, d: TimeDelta) -> Timestamp { Timestamp(microseconds: a.microseconds + d.microseconds) }
    public static func - (a: Timestamp, d: TimeDelta) -> Timestamp { Timestamp(microseconds: a.microseconds - d.microseconds) }
    public static func - (a: Timestamp, b: Timestamp) -> TimeDelta { TimeDelta(microseconds: a.microseconds - b.microseconds) }
    public static func += (a: inout Timestamp, d: TimeDelta) { a.microseconds += d.microseconds }
    public var description: String { "\(Double(microseconds) / 1_000_000)s" }
}

/// A span of media time in microseconds; may be negative.
public struct TimeDelta: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Length in microseconds.
    public var microseconds: Int64

    /// A span of `microseconds`.
    public init(microseconds: Int64) { self.microseconds = microseconds }
    /// A span of `ms` milliseconds.
    public static func milliseconds(_ ms: Int64) -> TimeDelta { TimeDelta(microseconds: ms * 1000) }
    /// A span of `s` seconds, rounded to the microsecond.
    public static func seconds(_ s: Double) -> TimeDelta { TimeDelta(microseconds: Int64((s * 1_000_000).rounded())) }
    /// The length of one frame at `fps` frames per second.
    public static func frameInterval(fps: Double) -> TimeDelta { .seconds(1 / fps) }
    /// No time at all.
    public static let zero = TimeDelta(microseconds: 0)

    /// Length in seconds.
    public var seconds: Double { Double(microseconds) / 1_000_000 }
    /// Length in milliseconds, rounded toward zero.
    public var milliseconds: Int64 { microseconds / 1000 }
    /// Length as a standard library `Duration` (for `Task.sleep`).
    public var duration: Duration { .microseconds(microseconds) }

    public static func < (a: TimeDelta, b: TimeDelta) -> Bool { a.microseconds < b.microseconds }
    public static func + (a: TimeDelta, b: TimeDelta) -> TimeDelta { TimeDelta(microseconds: a.microseconds + b.microseconds) }
    public static func - (a: TimeDelta, b: TimeDelta) -> TimeDelta { TimeDelta(microseconds: a.microseconds - b.microseconds) }
    public static func * (a: TimeDelta, k: Int64) -> TimeDelta { TimeDelta(microseconds: a.microseconds * k) }
    public var description: String { "\(Double(microseconds) / 1000)ms" }
}

extension Duration {
    /// This duration in seconds (wall-clock measurements, for reports).
    package var seconds: Double {
        let (s, attos) = components
        return Double(s) + Double(attos) / 1e18
    }
}
