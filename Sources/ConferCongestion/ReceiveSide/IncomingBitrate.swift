public import ConferMedia

/// Bytes received over the last second, in 10 ms buckets (a fixed ring: adding never
/// allocates). The rate is known once a full second has been observed.
public struct IncomingBitrate: Sendable {
    static let bucketLength: Int64 = 10_000
    static let window: Int64 = 1_000_000

    private var buckets = [Int](repeating: 0, count: Int(window / bucketLength))
    private var total = 0
    private var newestBucket: Int64?
    private var firstBucket: Int64 = 0

    /// A window that has seen nothing.
    public init() {}

    /// Adds `size` bytes received at `time`. A time before the newest bucket counts in it.
    public mutating func add(_ size: Int, at time: Timestamp) {
        let bucket = time.microseconds / Self.bucketLength
        advance(to: bucket)
        buckets[slot(newestBucket ?? bucket)] += size
        total += size
    }

    /// The rate over the second before `time`, or nil until a full second has passed.
    public mutating func rate(at time: Timestamp) -> DataRate? {
        advance(to: time.microseconds / Self.bucketLength)
        guard let newestBucket, newestBucket - firstBucket >= Int64(buckets.count) else { return nil }
        return DataRate(bitsPerSecond: Int64(total) * 8 * 1_000_000 / Self.window)
    }

    private mutating func advance(to bucket: Int64) {
        guard let newest = newestBucket else {
            newestBucket = bucket
            firstBucket = bucket
            return
        }
        guard bucket > newest else { return }
        // Clear every bucket that falls out of the window (all of them after a long gap).
        let steps = min(bucket - newest, Int64(buckets.count))
        for step in 1 ... steps {
            let index = slot(newest + step)
            total -= buckets[index]
            buckets[index] = 0
        }
        newestBucket = bucket
    }

    /// The ring slot of `bucket` (times before the epoch are negative: wrap them too).
    private func slot(_ bucket: Int64) -> Int {
        let count = Int64(buckets.count)
        return Int(truncatingIfNeeded: (bucket % count + count) % count)
    }

    var storageFingerprint: [Int] { fingerprint(buckets) }
}
