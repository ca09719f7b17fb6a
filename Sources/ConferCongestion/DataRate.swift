public import ConferMedia

/// A bitrate in bits per second.
///
/// Units are types (as in libwebrtc's `DataRate`), so a rate never mixes with a byte count
/// or a kilobit figure by accident. Rates are whole bits per second; products round to
/// the nearest bit.
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
    public static func kilobitsPerSecond(_ kbps: Double) -> DataRate { DataRate(bitsPerSecond: Int64((kbps * 1000).rounded())) }
    /// A rate of `mbps` megabits per second, rounded to the bit.
    @inlinable
    public static func megabitsPerSecond(_ mbps: Double) -> DataRate { DataRate(bitsPerSecond: Int64((mbps * 1_000_000).rounded())) }
    /// No rate at all.
    public static let zero = DataRate(bitsPerSecond: 0)

    /// The rate at which `bytes` pass in `duration`, or nil when `duration` is not positive.
    @inlinable
    public init?(bytes: Int, over duration: TimeDelta) {
        guard duration.microseconds > 0 else { return nil }
        self.init(bitsPerSecond: Int64((Double(bytes) * 8_000_000 / Double(duration.microseconds)).rounded()))
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
        return TimeDelta(microseconds: (Int64(bytes) * 8_000_000 + bitsPerSecond / 2) / bitsPerSecond)
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
        DataRate(bitsPerSecond: Int64((Double(a.bitsPerSecond) * factor).rounded()))
    }
    /// The rate scaled by `factor`, rounded to the nearest bit per second.
    @inlinable
    public static func * (factor: Double, a: DataRate) -> DataRate { a * factor }

    public var description: String { "\(Double(bitsPerSecond / 100) / 10) kbps" }
}
