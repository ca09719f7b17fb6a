public import ConferMedia

/// When the next queued packet may leave (libwebrtc's `PacingController`, its media budget
/// only): packets leave at ``pacingFactor`` × the target bitrate instead of as one burst
/// per frame, so a keyframe of 30 packets does not overflow a bottleneck's queue that a
/// steady stream at the same bitrate never fills.
///
/// A leaky bucket kept as a debt: each packet sent adds its bytes; the debt drains at the
/// pacing rate; a packet may leave once the debt is paid (so a lone packet on an idle
/// link leaves at once, and a burst is spread). The rate is raised when the queue would
/// otherwise take longer than ``maximumQueueTime`` to drain, so pacing never holds media
/// back for long (libwebrtc's "max queue time" rule).
///
/// Only sizes and times: the caller keeps the packets. A value with an injected clock.
public struct Pacer: Hashable, Sendable {
    /// Packets leave at this multiple of the target bitrate (libwebrtc's factor).
    public static let pacingFactor = 2.5
    /// The queue is drained within this at most, whatever the target.
    public static let maximumQueueTime = TimeDelta.seconds(2)

    /// The multiple of the target packets leave at (``pacingFactor`` unless set otherwise).
    public var factor: Double
    /// The rate the debt drains at now.
    public private(set) var rate: DataRate
    /// Bytes sent and not yet paid for at ``rate``.
    public private(set) var debt = 0.0
    private var lastDrain: Timestamp?

    /// A pacer for a `target` bitrate, sending at `factor` × it.
    public init(target: DataRate, factor: Double = Self.pacingFactor) {
        self.factor = factor
        rate = max(target * factor, .kilobitsPerSecond(10))
    }

    /// Sets the target bitrate; `queuedBytes` waiting raise the rate if needed to drain
    /// them within ``maximumQueueTime``.
    public mutating func setTarget(_ target: DataRate, queuedBytes: Int, at now: Timestamp) {
        drain(at: now)
        let drainRate = DataRate(bytes: queuedBytes, over: Self.maximumQueueTime) ?? .zero
        rate = max(target * factor, drainRate, .kilobitsPerSecond(10))
    }

    /// When the debt will have been paid: the earliest a packet may leave (nil before any was sent).
    public var earliestSendTime: Timestamp? {
        guard let lastDrain else { return nil }
        guard debt > 0 else { return lastDrain }
        return lastDrain + TimeDelta(microseconds: Int64((debt * 8 / Double(max(rate.bitsPerSecond, 1)) * 1_000_000).rounded(.up)))
    }

    /// When a packet may leave, at `now` or later.
    public func nextSendTime(at now: Timestamp) -> Timestamp {
        guard let lastDrain, debt > 0 else { return now }
        let wait = TimeDelta(microseconds: Int64((debt * 8 / Double(max(rate.bitsPerSecond, 1)) * 1_000_000).rounded(.up)))
        return max(lastDrain + wait, now)
    }

    /// Whether a packet may leave at `now`.
    public mutating func canSend(at now: Timestamp) -> Bool {
        drain(at: now)
        return debt <= 0
    }

    /// Records a packet of `size` bytes that left at `now`.
    public mutating func sent(_ size: Int, at now: Timestamp) {
        drain(at: now)
        debt += Double(max(size, 0))
    }

    private mutating func drain(at now: Timestamp) {
        if let lastDrain, now > lastDrain {
            debt = max(debt - Double(rate.bitsPerSecond) / 8 * Double((now - lastDrain).microseconds) / 1_000_000, 0)
        }
        if lastDrain.map({ now > $0 }) ?? true { lastDrain = now }
    }
}
