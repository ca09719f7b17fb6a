/// Extends a wrapping counter (16-bit sequence numbers, 32-bit timestamps) to 64 bits.
///
/// Each value is placed at the unwrapped position closest to the previous value, so a
/// counter that wraps forwards keeps growing and a packet reordered across the wrap lands
/// just behind the packets around it. This is libwebrtc's `SeqNumUnwrapper`: the first
/// value unwraps to itself, a step of exactly half the range counts as forwards when the
/// raw value grew, and every call (even one going backwards) becomes the new reference.
public struct Unwrapper<Value: FixedWidthInteger & UnsignedInteger & Sendable>: Hashable, Sendable {
    private var lastValue: Value?
    private var lastUnwrapped: Int64 = 0

    /// An unwrapper that has seen nothing yet.
    public init() {}

    /// The unwrapped form of `value`, which becomes the reference for the next call.
    public mutating func unwrap(_ value: Value) -> Int64 {
        let unwrapped = peekUnwrap(value)
        lastValue = value
        lastUnwrapped = unwrapped
        return unwrapped
    }

    /// The unwrapped form of `value`, without changing the reference.
    public func peekUnwrap(_ value: Value) -> Int64 {
        guard let lastValue else { return Int64(value) }
        return lastUnwrapped + Self.delta(from: lastValue, to: value)
    }

    /// The last value returned by ``unwrap(_:)``, or nil before the first call.
    public var lastUnwrappedValue: Int64? { lastValue == nil ? nil : lastUnwrapped }

    /// Forgets everything, so the next value unwraps to itself.
    public mutating func reset() {
        lastValue = nil
        lastUnwrapped = 0
    }

    /// Signed distance from `last` to `next`, choosing the shorter way around the ring.
    static func delta(from last: Value, to next: Value) -> Int64 {
        let forward = next &- last
        let half = Value.max / 2 + 1
        let isAhead = forward == half ? next > last : forward < half
        // Value.bitWidth is at most 32 for the counters RTP has, so 1 << bitWidth fits.
        let distance = Int64(truncatingIfNeeded: forward)
        return isAhead ? distance : distance - (Int64(1) << Value.bitWidth)
    }
}

/// Unwraps 16-bit RTP (or transport-wide) sequence numbers to 64 bits.
public typealias SequenceUnwrapper = Unwrapper<UInt16>

/// Unwraps 32-bit RTP timestamps to 64 bits.
public typealias TimestampUnwrapper = Unwrapper<UInt32>
