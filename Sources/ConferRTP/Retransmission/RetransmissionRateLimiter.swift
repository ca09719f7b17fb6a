public import ConferMedia

/// Caps a sender's retransmissions at its target bitrate over the last half second, as
/// libwebrtc's retransmission rate limiter does (`RateLimiter`, a 500 ms window at the
/// target bitrate).
///
/// Without it, a link that drops packets because it is full is answered with more: every
/// NACK for a queue's drops brings retransmissions into the same queue, which drops them
/// and more media, whose NACKs bring more. Through `confer netsim` with a 2.5 Mbit/s cap, an
/// uncapped sender sent 9.7 MB of retransmissions beside 5.3 MB of media in 20 s, and the
/// link lost 75 % of what it was given. Refused requests are not lost for good: the packet
/// stays in the history for a later NACK, or the receiver asks for a keyframe.
///
/// Bytes are counted in ten 50 ms buckets, so the limiter is a fixed array that never
/// allocates; a value with an injected clock.
public struct RetransmissionRateLimiter: Sendable, Hashable {
    /// The window the rate is measured over.
    public static let window = TimeDelta.milliseconds(500)
    private static let bucketCount = 10
    private static let bucketLength = window.microseconds / Int64(bucketCount)

    private var buckets = [Int](repeating: 0, count: bucketCount)
    /// The bucket index (time / bucket length) `buckets` was last brought up to.
    private var lastBucket: Int64?

    /// A limiter that has sent nothing.
    public init() {}

    /// The bytes that may still be retransmitted at `now` without the last half second's
    /// retransmissions passing `bitrate` (bit/s).
    public mutating func budget(at now: Timestamp, bitrate: Int) -> Int {
        advance(to: now)
        // Clamped so the product cannot overflow whatever a caller passes (1 Tbit/s).
        let allowed = Int(Int64(min(max(bitrate, 0), 1 << 40)) * Self.window.microseconds / 8_000_000)
        return max(allowed - buckets.reduce(0, +), 0)
    }

    /// Counts `bytes` retransmitted at `now`.
    public mutating func record(_ bytes: Int, at now: Timestamp) {
        advance(to: now)
        buckets[Self.slot(Self.bucket(of: now))] += bytes
    }

    private static func bucket(of time: Timestamp) -> Int64 {
        time.microseconds >= 0 ? time.microseconds / bucketLength : (time.microseconds + 1) / bucketLength - 1
    }

    /// Where bucket `index` lives in the array (non-negative for any index).
    private static func slot(_ index: Int64) -> Int {
        Int((index % Int64(bucketCount) + Int64(bucketCount)) % Int64(bucketCount))
    }

    /// Empties the buckets that have left the window since the last call.
    private mutating func advance(to now: Timestamp) {
        let current = Self.bucket(of: now)
        guard let last = lastBucket else {
            lastBucket = current
            return
        }
        guard current > last else { return }
        let stale = min(current - last, Int64(Self.bucketCount))
        for step in 1 ... stale {
            buckets[Self.slot(last + step)] = 0
        }
        lastBucket = current
    }
}
