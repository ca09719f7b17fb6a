import ConferMedia

/// Maps RTP timestamps to local time and measures each frame's delay variation.
///
/// A frame's offset is its completion time minus its media time (the unwrapped RTP
/// timestamp in microseconds). The smallest offset seen — over two 5 s buckets, so the
/// minimum follows slow clock drift and route changes — is the path delay of the least
/// delayed frame: a frame's local capture time is its media time plus that minimum, and its
/// delay variation is its own offset minus the minimum. A frame off by more than the
/// discontinuity threshold is played on arrival and not measured; three in a row mean the
/// sender's clock really jumped, and the mapping starts again from them.
struct VideoTiming: Sendable {
    struct Mapping {
        /// The frame's capture time on the local clock.
        var localCapture: Timestamp
        /// Completion offset above the minimum; nil for a timing discontinuity.
        var variation: TimeDelta?
        /// The RTP timestamp relative to the stream's first frame.
        var mediaTime: Timestamp
    }

    private let clockRate: Int64
    private let discontinuity: Int64
    private static let bucketLength: Int64 = 5_000_000
    private static let outliersToReanchor = 3

    private var reference: (raw: UInt32, unwrapped: Int64)?
    private var firstUnwrapped: Int64 = 0
    private var currentMinimum: Int64 = 0
    private var previousMinimum: Int64?
    private var bucketStart = Timestamp.zero
    private var outliers = 0
    /// An average of the media time between consecutive frames, in microseconds.
    private(set) var frameInterval: Int64 = 33_333

    init(clockRate: Int, discontinuity: TimeDelta) {
        self.clockRate = Int64(max(1, clockRate))
        self.discontinuity = max(1, discontinuity.microseconds)
    }

    /// Microseconds of `ticks`, without overflow for any stream length.
    private func micros(_ ticks: Int64) -> Int64 {
        let seconds = ticks / clockRate
        let rest = ticks % clockRate
        return seconds * 1_000_000 + rest * 1_000_000 / clockRate
    }

    /// Notes the media time between two frames consumed one right after the other (no
    /// packet missing between them): one frame interval. Frames complete out of order on a
    /// jittery link, so only decode order measures the interval.
    mutating func noteFrameInterval(_ interval: TimeDelta) {
        // Spatial layers share a timestamp; a gap of a second or more is a pause, not a rate.
        guard interval > .zero, interval < .seconds(1) else { return }
        frameInterval += (interval.microseconds - frameInterval) / 8
    }

    /// Maps a frame with `rtpTimestamp` that completed at `time`.
    mutating func map(rtpTimestamp: UInt32, completedAt time: Timestamp) -> Mapping {
        guard let reference else {
            reference = (rtpTimestamp, Int64(rtpTimestamp))
            firstUnwrapped = Int64(rtpTimestamp)
            currentMinimum = time.microseconds
            previousMinimum = nil
            bucketStart = time
            return Mapping(localCapture: time, variation: .zero, mediaTime: .zero)
        }
        let unwrapped = reference.unwrapped + Int64(Int32(bitPattern: rtpTimestamp &- reference.raw))
        let media = micros(unwrapped - firstUnwrapped)
        let offset = time.microseconds - media
        let base = min(currentMinimum, previousMinimum ?? currentMinimum)
        if abs(offset - base) > discontinuity {
            outliers += 1
            guard outliers >= Self.outliersToReanchor else {
                return Mapping(localCapture: time, variation: nil, mediaTime: Timestamp(microseconds: media))
            }
            currentMinimum = offset
            previousMinimum = nil
            bucketStart = time
        }
        outliers = 0
        if unwrapped > reference.unwrapped { self.reference = (rtpTimestamp, unwrapped) }
        if time - bucketStart >= TimeDelta(microseconds: Self.bucketLength) {
            previousMinimum = currentMinimum
            currentMinimum = offset
            bucketStart = time
        } else {
            currentMinimum = min(currentMinimum, offset)
        }
        let minimum = min(currentMinimum, previousMinimum ?? currentMinimum)
        return Mapping(localCapture: Timestamp(microseconds: media + minimum),
                       variation: TimeDelta(microseconds: offset - minimum),
                       mediaTime: Timestamp(microseconds: media))
    }
}

/// The target delay: rises at once to what is needed, falls slowly, never above the cap.
struct VideoTargetDelay: Sendable {
    private(set) var current = TimeDelta.zero
    private var lastUpdate: Timestamp?
    /// Whether the cap holds the target down now.
    private(set) var isCapped = false

    mutating func update(desired: TimeDelta, cap: TimeDelta, decayTime: TimeDelta, at now: Timestamp) -> TimeDelta {
        if let last = lastUpdate, desired < current {
            // First-order decay toward `desired`, time constant `decayTime`, however often this is called.
            let elapsed = max(0, (now - last).microseconds)
            let fraction = min(1, Double(elapsed) / Double(max(1, decayTime.microseconds)))
            current = current - TimeDelta(microseconds: Int64(Double((current - desired).microseconds) * fraction))
        } else {
            current = desired
        }
        if lastUpdate.map({ now > $0 }) ?? true { lastUpdate = now }
        isCapped = desired > cap
        current = min(current, cap)
        return current
    }
}
