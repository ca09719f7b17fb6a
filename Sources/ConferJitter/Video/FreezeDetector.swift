public import ConferMedia

/// Counts video freezes and pauses from the times frames are rendered, as W3C webrtc-stats
/// defines `freezeCount`, `totalFreezesDuration`, `pauseCount` and `totalPausesDuration`.
///
/// A frame's duration is the time since the previous rendered frame. It is a freeze when
/// that duration is at least max(3 × avg, avg + 150 ms), where avg is the linear average of
/// the durations of the last 30 rendered frames — this one included, as libwebrtc's
/// `VideoQualityObserver` (where the definition comes from) computes it, though here in
/// microseconds rather than rounded-down milliseconds. A duration over 5 s is a pause, not
/// a freeze, and is left out of the average (playback was stopped, not stuttering).
public struct FreezeDetector: Sendable, Hashable {
    /// How many recent durations the average covers.
    public static let averageWindow = 30
    /// The least a freeze exceeds the average by.
    public static let minimumIncrease = TimeDelta.milliseconds(150)
    /// Longer gaps are pauses.
    public static let pauseThreshold = TimeDelta.seconds(5)

    /// Frames rendered.
    public private(set) var framesRendered = 0
    /// Freezes so far.
    public private(set) var freezeCount = 0
    /// The sum of the freezes' durations.
    public private(set) var totalFreezesDuration = TimeDelta.zero
    /// Pauses so far.
    public private(set) var pauseCount = 0
    /// The sum of the pauses' durations.
    public private(set) var totalPausesDuration = TimeDelta.zero

    private var lastRenderedAt: Timestamp?
    private var durations = [Int64](repeating: 0, count: FreezeDetector.averageWindow)
    private var durationCount = 0
    private var durationNext = 0
    private var durationSum: Int64 = 0

    /// A detector that has seen no frame.
    public init() {}

    /// What one rendered frame was.
    public enum Interval: Hashable, Sendable {
        /// The first frame, or one on time.
        case smooth
        /// The frame ended a freeze of this length.
        case freeze(TimeDelta)
        /// The frame ended a pause of this length.
        case pause(TimeDelta)
    }

    /// Notes a frame rendered at `time` (not earlier than the previous one).
    @discardableResult
    public mutating func frameRendered(at time: Timestamp) -> Interval {
        framesRendered += 1
        defer { lastRenderedAt = time }
        guard let last = lastRenderedAt else { return .smooth }
        let duration = max(.zero, time - last)
        if duration > Self.pauseThreshold {
            pauseCount += 1
            totalPausesDuration = totalPausesDuration + duration
            return .pause(duration)
        }
        let micros = duration.microseconds
        if durationCount == Self.averageWindow { durationSum -= durations[durationNext] } else { durationCount += 1 }
        durations[durationNext] = micros
        durationSum += micros
        durationNext = (durationNext + 1) % Self.averageWindow
        let average = durationSum / Int64(durationCount)
        let threshold = max(3 * average, average + Self.minimumIncrease.microseconds)
        guard micros >= threshold else { return .smooth }
        freezeCount += 1
        totalFreezesDuration = totalFreezesDuration + duration
        return .freeze(duration)
    }
}
