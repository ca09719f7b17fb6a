public import ConferMedia

/// Estimates how much later than the earliest a frame completes: the 95th percentile of
/// recent frames' delay variation, the delay a jitter buffer must add to play nearly every
/// frame on time.
///
/// Each sample is one frame's completion time minus its capture time mapped to local time
/// through the smallest such offset seen (so the least delayed frame has variation 0). The
/// estimate is the nearest-rank percentile of the samples from the last ``Configuration/window``
/// (at most ``Configuration/maxSamples``), kept in a sorted array: exact, O(window) per
/// sample, no allocation.
///
/// Why this and not libwebrtc's `JitterEstimator` (a Kalman filter on frame delay against
/// frame size, plus a noise term of a few standard deviations): the Kalman filter's main
/// gain is to explain delay by frame size on links where serialization time dominates, and
/// its noise model assumes roughly Gaussian jitter. Meeting traffic is mostly many similar
/// small frames, and real jitter is skewed (queues build up, then drain), where a mean plus
/// k·σ either overshoots or misses the tail. A percentile is what "play 95 % of frames on
/// time" means, ignores rare spikes by construction, and needs no tuning beyond its window.
/// Fast attack and slow decay (the owner's job, see ``VideoJitterBuffer``) keep the delay
/// from chasing each sample.
public struct JitterEstimator: Sendable {
    /// Window and percentile.
    public struct Configuration: Sendable, Hashable {
        /// Which percentile, in 0…1.
        public var percentile: Double
        /// Samples older than this are forgotten.
        public var window: TimeDelta
        /// The most samples kept, whatever the frame rate.
        public var maxSamples: Int

        /// A 95th-percentile estimator over the last 2 s (256 samples at most).
        public init(percentile: Double = 0.95, window: TimeDelta = .seconds(2), maxSamples: Int = 256) {
            self.percentile = percentile
            self.window = window
            self.maxSamples = maxSamples
        }
    }

    /// The settings in force.
    public let configuration: Configuration
    /// Samples in arrival order: a ring of `capacity`.
    private var times: [Timestamp]
    private var values: [Int64]
    private var head = 0
    /// The same values, ascending.
    private var sorted: [Int64]
    private let capacity: Int

    /// An estimator with no samples.
    public init(configuration: Configuration = Configuration()) {
        var configuration = configuration
        configuration.percentile = min(1, max(0, configuration.percentile))
        configuration.maxSamples = max(1, configuration.maxSamples)
        self.configuration = configuration
        capacity = configuration.maxSamples
        times = Array(repeating: .zero, count: capacity)
        values = Array(repeating: 0, count: capacity)
        sorted = []
        sorted.reserveCapacity(capacity)
    }

    /// How many samples are in the window.
    public var sampleCount: Int { sorted.count }

    /// The percentile of the samples in the window; zero with none.
    public private(set) var estimate = TimeDelta.zero

    private mutating func updateEstimate() {
        guard !sorted.isEmpty else {
            estimate = .zero
            return
        }
        let rank = Int((configuration.percentile * Double(sorted.count)).rounded(.up))
        estimate = TimeDelta(microseconds: sorted[min(sorted.count, max(1, rank)) - 1])
    }

    /// Adds the delay variation of a frame completed at `time` (negative values count as 0).
    public mutating func addSample(_ variation: TimeDelta, at time: Timestamp) {
        forget(before: time - configuration.window)
        if sorted.count == capacity { removeOldest() }   // the estimate is updated below
        let value = max(0, variation.microseconds)
        let slot = (head + sorted.count) % capacity
        times[slot] = time
        values[slot] = value
        sorted.insert(value, at: insertionIndex(of: value))
        updateEstimate()
    }

    /// Forgets the samples taken before `time - window`; call as time passes without frames.
    public mutating func update(at time: Timestamp) {
        forget(before: time - configuration.window)
    }

    /// Forgets every sample.
    public mutating func reset() {
        sorted.removeAll(keepingCapacity: true)
        head = 0
        estimate = .zero
    }

    private mutating func forget(before time: Timestamp) {
        guard !sorted.isEmpty, times[head] < time else { return }
        while !sorted.isEmpty, times[head] < time { removeOldest() }
        updateEstimate()
    }

    private mutating func removeOldest() {
        let value = values[head]
        let index = insertionIndex(of: value)
        // The value is present: insertionIndex finds the first element not less than it.
        if index < sorted.count, sorted[index] == value { sorted.remove(at: index) }
        head = (head + 1) % capacity
    }

    /// The first index whose element is not less than `value`.
    private func insertionIndex(of value: Int64) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
