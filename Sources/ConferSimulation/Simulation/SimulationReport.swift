public import ConferMedia
public import ConferNet
public import ConferJitter
public import Confer

/// Everything a ``Simulation`` measured: the receiver's W3C statistics, the sender's, the
/// network's, picture quality against the input, and end-to-end delay.
public struct SimulationReport: Sendable, Codable {
    /// Picture quality of the received video against the input, frame for frame (see
    /// ``SimulationRecorder`` for how the two are lined up).
    public struct Quality: Sendable, Codable {
        /// Output frames compared with their input frames.
        public var framesCompared: Int
        /// Output frames showing their own input frame's picture.
        public var framesShown: Int
        /// Output frames repeating an earlier picture (freezes, losses, encoder skips).
        public var framesRepeated: Int
        /// Output frames before the first picture rendered (black).
        public var framesBlank: Int
        /// Mean PSNR in dB (Y, U, V and the whole frame).
        public var meanPSNR: PlaneScores
        /// Lowest PSNR of any frame.
        public var minPSNR: PlaneScores
        /// Mean SSIM.
        public var meanSSIM: PlaneScores
    }

    /// One-way network delay, in milliseconds.
    public struct Network: Sendable, Codable {
        /// Sender to receiver, as configured at the start.
        public var forward: NetworkConditions
        /// Receiver to sender, as configured at the start.
        public var backward: NetworkConditions
        /// What the forward path did.
        public var forwardStatistics: NetworkLinkStatistics
        /// What the backward path did.
        public var backwardStatistics: NetworkLinkStatistics
        /// One-way delay of the media packets that arrived.
        public var forwardDelay: SimulationPercentiles
    }

    /// The state at one moment of the run.
    public struct Sample: Sendable, Codable {
        /// Seconds since the first capture.
        public var time: Double
        /// The congestion controller's target, bits per second (audio included).
        public var targetBitrate: Int
        /// The bitrate asked of the video encoder, bits per second.
        public var encoderBitrate: Int
        /// What the sender actually sent since the previous sample, bits per second.
        public var sendBitrate: Int
        /// The video jitter buffer's target delay, seconds.
        public var videoTargetDelay: Double?
        /// The audio jitter buffer's target delay, seconds.
        public var audioTargetDelay: Double?
        /// The round-trip time the sender measured, seconds.
        public var roundTripTime: Double?
        /// Frames rendered so far.
        public var framesRendered: Int
        /// The longest end-to-end delay of the frames rendered since the previous sample, seconds.
        public var endToEndDelay: Double?
    }

    /// The video codec.
    public var codec: Codec
    /// Picture width.
    public var width: Int
    /// Picture height.
    public var height: Int
    /// Input frame rate.
    public var frameRate: Double
    /// The seed the run used.
    public var seed: UInt64
    /// Whether NACK/RTX was on.
    public var nack: Bool
    /// Whether Opus FEC was on.
    public var fec: Bool
    /// Input frames read.
    public var inputFrames: Int
    /// Output frames written (the same count, see ``SimulationRecorder``).
    public var outputFrames: Int
    /// Input audio in seconds (0 without audio).
    public var inputAudioSeconds: Double
    /// Output audio in seconds (pulled every 10 ms for the whole run).
    public var outputAudioSeconds: Double
    /// Virtual seconds simulated.
    public var simulatedSeconds: Double
    /// Wall-clock seconds the run took.
    public var wallSeconds: Double
    /// Simulated seconds per wall second.
    public var speed: Double
    /// The receiver's video statistics (W3C names: packetsReceived, packetsLost, jitter,
    /// framesDecoded, framesDropped, framesRendered, keyFramesDecoded, freezeCount,
    /// totalFreezesDuration, jitterBufferDelay, jitterBufferTargetDelay,
    /// jitterBufferEmittedCount, nackCount, pliCount, firCount).
    public var video: VideoReceiveStatistics?
    /// The receiver's audio statistics (concealedSamples, insertedSamplesForDeceleration,
    /// removedSamplesForAcceleration, audioLevel, totalAudioEnergy, …).
    public var audio: AudioReceiveStatistics?
    /// Concealed samples over samples played (0 without audio).
    public var audioConcealedFraction: Double
    /// Audible concealed samples (concealed less silentConcealedSamples: losses in silence,
    /// which Opus sends no FEC for and which sound the same concealed) over samples played.
    public var audioAudibleConcealedFraction: Double
    /// The sender's statistics.
    public var sender: SendPipelineStatistics
    /// The receive pipeline's own counters (its `video` and `audio` are above).
    public var receiver: ReceivePipelineStatistics
    /// Quality of the received video against the input.
    public var quality: Quality
    /// Render time minus capture time of every rendered frame, in milliseconds.
    public var endToEndDelay: SimulationPercentiles
    /// The network both ways.
    public var network: Network
    /// Bitrate and delay over time.
    public var timeline: [Sample]
    /// Times the sender was restarted.
    public var senderRestarts: Int
}

/// Percentiles of a set of durations, in milliseconds, by the nearest-rank method: the
/// *p*-th percentile of *n* sorted values is the ⌈p·n/100⌉-th smallest (so it is always one
/// of the values, and p100 is the largest).
public struct SimulationPercentiles: Sendable, Codable, Equatable {
    /// How many values.
    public var count: Int
    /// The median.
    public var p50: Double
    /// The 95th percentile.
    public var p95: Double
    /// The 99th percentile.
    public var p99: Double
    /// The mean.
    public var mean: Double
    /// The smallest value.
    public var min: Double
    /// The largest value.
    public var max: Double

    /// The percentiles of `values` (all zero when there are none).
    public init(_ values: [TimeDelta]) {
        let sorted = values.map { Double($0.microseconds) / 1000 }.sorted()
        count = sorted.count
        guard let first = sorted.first, let last = sorted.last else {
            p50 = 0; p95 = 0; p99 = 0; mean = 0; min = 0; max = 0
            return
        }
        p50 = Self.percentile(50, of: sorted)
        p95 = Self.percentile(95, of: sorted)
        p99 = Self.percentile(99, of: sorted)
        mean = sorted.reduce(0, +) / Double(sorted.count)
        min = first
        max = last
    }

    /// The `p`-th percentile (0 < p ≤ 100) of ascending, non-empty `sorted` by nearest rank.
    public static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        // p · n first: exact for whole p and n, where p / 100 · n can land a hair above a whole rank.
        let rank = Int((p * Double(sorted.count) / 100).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}
