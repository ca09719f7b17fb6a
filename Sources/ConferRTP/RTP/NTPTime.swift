public import ConferMedia

/// A 64-bit NTP timestamp (RFC 5905 §6): seconds since 1900-01-01 in the high 32 bits and
/// fractions of 1/2^32 s in the low 32, as RTCP sender reports carry it (RFC 3550 §4).
public struct NTPTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The 32.32 fixed-point value.
    public var rawValue: UInt64

    /// The time whose 32.32 value is `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The time `seconds` + `fraction` / 2^32 s after the NTP epoch.
    public init(seconds: UInt32, fraction: UInt32) {
        rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// The time `sinceEpoch` after 1900-01-01 00:00 UTC, rounded to the nearest fraction
    /// (wrapping every 2^32 s, as NTP era 0 does).
    public init(sinceEpoch: TimeDelta) {
        self.init(rawValue: Self.fixedPoint(sinceEpoch))
    }

    /// Whole seconds since the NTP epoch (the high 32 bits).
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    /// Fractions of a second in units of 1/2^32 s (the low 32 bits).
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }
    /// The middle 32 bits (16.16), the compact form RTCP report blocks use for LSR.
    public var compact: CompactNTPTime { CompactNTPTime(rawValue: UInt32(truncatingIfNeeded: rawValue >> 16)) }

    /// Time since the NTP epoch, rounded to the nearest microsecond.
    public var sinceEpoch: TimeDelta {
        TimeDelta(microseconds: Int64(seconds) * 1_000_000 + Self.microseconds(ofFraction: UInt64(fraction)))
    }

    /// The time `delta` later (wrapping like NTP does).
    public static func + (time: NTPTime, delta: TimeDelta) -> NTPTime {
        NTPTime(rawValue: time.rawValue &+ fixedPoint(delta))
    }

    /// The signed span from `b` to `a`, taking the shorter way around the 2^32 s era.
    public static func - (a: NTPTime, b: NTPTime) -> TimeDelta {
        let difference = Int64(bitPattern: a.rawValue &- b.rawValue)
        let seconds = difference >> 32  // arithmetic shift: floors
        let fraction = UInt64(difference & 0xFFFF_FFFF)
        return TimeDelta(microseconds: seconds * 1_000_000 + microseconds(ofFraction: fraction))
    }

    public static func < (a: NTPTime, b: NTPTime) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "NTP \(seconds).\(fraction)" }

    /// `delta` as a 32.32 fixed-point count, rounded to the nearest 1/2^32 s; negative
    /// spans come out as their two's complement so that adding them subtracts.
    static func fixedPoint(_ delta: TimeDelta) -> UInt64 {
        let us = delta.microseconds
        var seconds = us / 1_000_000
        var remainder = us % 1_000_000
        if remainder < 0 {
            seconds -= 1
            remainder += 1_000_000
        }
        let fraction = (UInt64(remainder) << 32 + 500_000) / 1_000_000
        return UInt64(bitPattern: seconds) << 32 &+ fraction
    }

    /// A 1/2^32 s fraction (below 2^32) in microseconds, rounded to nearest.
    static func microseconds(ofFraction fraction: UInt64) -> Int64 {
        Int64((fraction * 1_000_000 + (1 << 31)) >> 32)
    }
}

/// The compact 32-bit NTP form (16.16 fixed point): the middle bits of an ``NTPTime``, as
/// RTCP's LSR and DLSR fields carry (RFC 3550 §6.4.1), in units of 1/65536 s.
public struct CompactNTPTime: Hashable, Sendable, Codable {
    /// The 16.16 value.
    public var rawValue: UInt32

    /// The value `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A span in units of 1/65536 s, rounded to nearest; negative spans become zero and
    /// spans past 65536 s wrap, since the field can hold neither.
    public init(_ delta: TimeDelta) {
        let us = max(delta.microseconds, 0)
        rawValue = UInt32(truncatingIfNeeded: (UInt64(us) << 16 + 500_000) / 1_000_000)
    }

    /// The value read as a span of time, rounded to the nearest microsecond.
    public var timeDelta: TimeDelta {
        TimeDelta(microseconds: Int64((UInt64(rawValue) * 1_000_000 + (1 << 15)) >> 16))
    }

    /// The round trip a reply reveals when it arrives at `now`: A − `sent` − `delay` in
    /// compact units (RFC 3550 §6.4.1 for LSR/DLSR, RFC 3611 §4.5 for LRR/DLRR), or nil
    /// when `sent` is zero (nothing was echoed yet). The arithmetic wraps like the 32-bit
    /// fields do; a negative result (unsynchronized or lying peers) is returned as is, for
    /// the caller to discard.
    public static func roundTrip(arrivingAt now: NTPTime, sent: CompactNTPTime, delay: CompactNTPTime) -> TimeDelta? {
        guard sent.rawValue != 0 else { return nil }
        let signed = Int64(Int32(bitPattern: now.compact.rawValue &- sent.rawValue &- delay.rawValue))
        let magnitude = CompactNTPTime(rawValue: UInt32(signed.magnitude)).timeDelta
        return signed < 0 ? .zero - magnitude : magnitude
    }

    /// The wrapping difference `a − b` in 1/65536 s units.
    public static func &- (a: CompactNTPTime, b: CompactNTPTime) -> CompactNTPTime {
        CompactNTPTime(rawValue: a.rawValue &- b.rawValue)
    }
}

/// How a media clock's ``Timestamp`` maps to NTP wall-clock time: the NTP time at which
/// the clock read zero. Injected, so sender reports and RTT computations never read the
/// machine's wall clock themselves.
public struct NTPClockMapping: Hashable, Sendable {
    /// The NTP time when the media clock read ``Timestamp/zero``.
    public var ntpAtZero: NTPTime

    /// A mapping in which the media clock's zero is `ntpAtZero`.
    public init(ntpAtZero: NTPTime) { self.ntpAtZero = ntpAtZero }

    /// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
    public static let unixEpochOffset = TimeDelta(microseconds: 2_208_988_800 * 1_000_000)

    /// A mapping in which the media clock's zero is `unixTime` after 1970-01-01 UTC.
    public init(unixTimeAtZero unixTime: TimeDelta) {
        self.init(ntpAtZero: NTPTime(sinceEpoch: unixTime + Self.unixEpochOffset))
    }

    /// The NTP time at `time` on the media clock.
    public func ntpTime(at time: Timestamp) -> NTPTime { ntpAtZero + (time - .zero) }

    /// The media-clock time at `ntp` (the shorter way around the NTP era).
    public func timestamp(at ntp: NTPTime) -> Timestamp { .zero + (ntp - ntpAtZero) }
}
