public import ConferMedia

/// The display's refresh grid: refresh `n` happens at ⌈n × 1 s / rate⌉ µs on the pacer's
/// clock, and any time maps to the refresh it falls in.
///
/// Deadlines round up and ticks round down, so `tick(at: deadline(ofTick: n)) == n` for
/// every `n` — a test that refreshes exactly at deadlines never lands on the previous tick.
public struct RefreshSchedule: Hashable, Sendable, Codable {
    /// Refreshes per second (Hz).
    public let rate: Int

    /// Rates the schedule accepts.
    public static let allowedRates = 1...1000

    /// The grid of a `rate` Hz display.
    public init(rate: Int) throws(RenderError) {
        guard Self.allowedRates.contains(rate) else {
            throw RenderError(.invalidRate, "refresh rate \(rate) Hz is outside \(Self.allowedRates)")
        }
        self.rate = rate
    }

    /// The nominal time between refreshes, rounded to the microsecond.
    public var interval: TimeDelta { TimeDelta(microseconds: (1_000_000 + Int64(rate) / 2) / Int64(rate)) }

    /// The refresh that `time` falls in (the last deadline at or before it).
    public func tick(at time: Timestamp) -> Int64 {
        let (seconds, micros) = Self.floorDivide(time.microseconds, 1_000_000)
        return seconds &* Int64(rate) &+ micros * Int64(rate) / 1_000_000
    }

    /// When refresh `tick` is due.
    public func deadline(ofTick tick: Int64) -> Timestamp {
        let (seconds, rest) = Self.floorDivide(tick, Int64(rate))
        let micros = (rest * 1_000_000 + Int64(rate) - 1) / Int64(rate)
        return Timestamp(microseconds: seconds &* 1_000_000 &+ micros)
    }

    /// Quotient rounded toward minus infinity and a remainder in `0..<d`, so times before
    /// the epoch still fall in the right refresh.
    private static func floorDivide(_ n: Int64, _ d: Int64) -> (Int64, Int64) {
        var q = n / d, r = n % d
        if r < 0 { q -= 1; r += d }
        return (q, r)
    }
}
