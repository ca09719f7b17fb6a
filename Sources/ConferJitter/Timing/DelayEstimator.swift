internal import ConferMedia

/// How late packets arrive, and the delay that covers a given share of them — NetEQ's
/// delay manager with a relative-delay histogram.
///
/// Each packet's transit time is its arrival minus its RTP timestamp (in microseconds);
/// its relative delay is that transit minus the smallest transit in the last
/// `window` of arrivals, i.e. how much later than the fastest recent packet it came. A
/// histogram of relative delays in 1 ms buckets forgets exponentially (each packet scales
/// the old weights so that they halve every `halfLife` of packet audio; the first packets
/// weigh as an equal-weight average so one early arrival does not dominate), and the
/// target is its `quantile`. The sliding minimum is a monotonic deque in a fixed ring.
struct DelayEstimator {
    static let bucketWidth: Int64 = 1000
    private static let ringCapacity = 1024

    private var histogram: [Double]
    private var packets = 0
    private let quantile: Double
    private let halfLife: Double
    private let window: Int64

    private var ringArrival: [Int64]
    private var ringTransit: [Int64]
    private var ringHead = 0
    private var ringCount = 0

    /// The relative delay at the quantile, in microseconds (the top of its bucket).
    private(set) var quantileDelay: Int64 = 0

    /// An estimator whose histogram reaches `maximumDelay`.
    init(maximumDelay: TimeDelta, quantile: Double, halfLife: TimeDelta, window: TimeDelta) {
        let buckets = Int(max(maximumDelay.microseconds, Self.bucketWidth) / Self.bucketWidth) + 1
        histogram = Array(repeating: 0, count: buckets)
        self.quantile = quantile
        self.halfLife = Double(max(halfLife.microseconds, 1))
        self.window = max(window.microseconds, 1)
        ringArrival = Array(repeating: 0, count: Self.ringCapacity)
        ringTransit = Array(repeating: 0, count: Self.ringCapacity)
    }

    /// Accounts for a packet stamped `timestamp` (48 kHz ticks) of `frameCount` samples
    /// that arrived at `arrival`; returns its relative delay in microseconds.
    @discardableResult
    mutating func update(timestamp: Int64, arrival: Timestamp, frameCount: Int) -> Int64 {
        let now = arrival.microseconds
        let transit = now - timestamp * 125 / 6
        while ringCount > 0, ringArrival[ringHead] < now - window { popFront() }
        while ringCount > 0 {
            let back = (ringHead + ringCount - 1) % Self.ringCapacity
            guard ringTransit[back] >= transit else { break }
            ringCount -= 1
        }
        if ringCount == Self.ringCapacity { popFront() }
        let slot = (ringHead + ringCount) % Self.ringCapacity
        ringArrival[slot] = now
        ringTransit[slot] = transit
        ringCount += 1
        let relative = max(0, transit - ringTransit[ringHead])

        let duration = Double(max(frameCount, 1)) * 1_000_000 / Double(conferSampleRate)
        let forget = Math.exponential2(-duration / halfLife)
        let weight = max(1 - forget, 1 / Double(packets + 1))
        packets = min(packets + 1, 1 << 30)
        let bucket = min(Int(relative / Self.bucketWidth), histogram.count - 1)
        let keep = 1 - weight
        var cumulative = 0.0
        var quantileBucket = -1
        for index in histogram.indices {
            histogram[index] = histogram[index] * keep + (index == bucket ? weight : 0)
            cumulative += histogram[index]
            if quantileBucket < 0, cumulative >= quantile { quantileBucket = index }
        }
        quantileDelay = Int64(max(quantileBucket, 0) + 1) * Self.bucketWidth
        if quantileBucket < 0 { quantileDelay = Int64(histogram.count) * Self.bucketWidth }
        return relative
    }

    /// Forgets the transit window (after a stream restart, whose timestamps start elsewhere);
    /// the histogram of how the network behaved is kept.
    mutating func resetWindow() {
        ringHead = 0
        ringCount = 0
    }

    private mutating func popFront() {
        ringHead = (ringHead + 1) % Self.ringCapacity
        ringCount -= 1
    }
}
