public import ConferMedia

/// A bitrate in bits per second.
///
/// Units are types (as in libwebrtc's `DataRate`), so a rate never mixes with a byte count
/// or a kilobit figure by accident. Rates are whole bits per second; products round to
/// the nearest bit and saturate instead of trapping, since rates can come from the wire
/// (REMB).
public struct DataRate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The rate in bits per second.
    public var bitsPerSecond: Int64

    /// A rate of `bitsPerSecond` bits per second.
    @inlinable
    public init(bitsPerSecond: Int64) { self.bitsPerSecond = bitsPerSecond }

    /// A rate of `bps` bits per second.
    @inlinable
    public static func bitsPerSecond(_ bps: Int64) -> DataRate { DataRate(bitsPerSecond: bps) }
    /// A rate of `kbps` kilobits (1000 bits) per second, rounded to the bit.
    @inlinable
    public static func kilobitsPerSecond(_ kbps: Double) -> DataRate { DataRate(bitsPerSecond: saturating(kbps * 1000)) }
    /// A rate of `mbps` megabits per second, rounded to the bit.
    @inlinable
    public static func megabitsPerSecond(_ mbps: Double) -> DataRate { DataRate(bitsPerSecond: saturating(mbps * 1_000_000)) }
    /// No rate at all.
    public static let zero = DataRate(bitsPerSecond: 0)

    /// The rate at which `bytes` pass in `duration`, or nil when `duration` is not positive.
    @inlinable
    public init?(bytes: Int, over duration: TimeDelta) {
        guard duration.microseconds > 0 else { return nil }
        self.init(bitsPerSecond: Self.saturating(Double(bytes) * 8_000_000 / Double(duration.microseconds)))
    }

    /// The rate in kilobits per second.
    @inlinable
    public var kilobitsPerSecond: Double { Double(bitsPerSecond) / 1000 }

    /// How many bytes pass at this rate in `duration`.
    @inlinable
    public func bytes(in duration: TimeDelta) -> Double { Double(bitsPerSecond) * Double(duration.microseconds) / 8_000_000 }

    /// How long `bytes` take at this rate, or nil when the rate is not positive.
    @inlinable
    public func duration(ofBytes bytes: Int) -> TimeDelta? {
        guard bitsPerSecond > 0 else { return nil }
        return TimeDelta(microseconds: Self.saturating(Double(bytes) * 8_000_000 / Double(bitsPerSecond)))
    }

    @inlinable
    public static func < (a: DataRate, b: DataRate) -> Bool { a.bitsPerSecond < b.bitsPerSecond }
    @inlinable
    public static func + (a: DataRate, b: DataRate) -> DataRate { DataRate(bitsPerSecond: a.bitsPerSecond + b.bitsPerSecond) }
    @inlinable
    public static func - (a: DataRate, b: DataRate) -> DataRate { DataRate(bitsPerSecond: a.bitsPerSecond - b.bitsPerSecond) }
    /// The rate scaled by `factor`, rounded to the nearest bit per second.
    @inlinable
    public static func * (a: DataRate, factor: Double) -> DataRate {
        DataRate(bitsPerSecond: saturating(Double(a.bitsPerSecond) * factor))
    }
    /// The rate scaled by `factor`, rounded to the nearest bit per second.
    @inlinable
    public static func * (factor: Double, a: DataRate) -> DataRate { a * factor }

    /// `value` rounded to the nearest integer, clamped to Int64's range (NaN is zero).
    @usableFromInline
    static func saturating(_ value: Double) -> Int64 {
        guard value.isFinite else { return value.isNaN ? 0 : (value > 0 ? .max : .min) }
        // 2^63 is the first double past Int64.max.
        if value >= 0x1p63 { return .max }
        if value < -0x1p63 { return .min }
        return Int64(value.rounded())
    }

    public var description: String { "\(Double(bitsPerSecond / 100) / 10) kbps" }
}
