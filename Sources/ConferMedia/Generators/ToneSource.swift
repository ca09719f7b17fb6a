/// Deterministic synthetic speech stand-in: a sine tone at 48 kHz in talk spurts
/// separated by silence.
///
/// Each participant gets its own frequency (``frequency(forIndex:)``) so a mix can be
/// picked apart with a Goertzel filter, and a seeded on/off pattern so speaking
/// detection has something to detect. Spurts fade in and out over a few milliseconds
/// to avoid clicks. Everything is a function of the sample index: the same seed gives
/// the same samples, whatever sizes they are pulled in.
public struct ToneSource: Sendable {
    /// When the tone sounds.
    public enum Pattern: Hashable, Sendable {
        /// The tone never stops.
        case continuous
        /// Spurts and gaps of seeded random lengths.
        case talkSpurts(TalkSpurts)

        /// Talk spurts of 0.8–2.5 s separated by 0.3–1.5 s of silence.
        public static var speech: Pattern { .talkSpurts(TalkSpurts()) }
    }

    /// The lengths a talk pattern draws from, in seconds.
    public struct TalkSpurts: Hashable, Sendable, Codable {
        /// Shortest and longest spurt.
        public var spurt: ClosedRange<Double>
        /// Shortest and longest silence between spurts.
        public var gap: ClosedRange<Double>
        /// Length of the fade at each end of a spurt.
        public var fade: Double

        /// A talk pattern with these lengths.
        public init(spurt: ClosedRange<Double> = 0.8...2.5, gap: ClosedRange<Double> = 0.3...1.5, fade: Double = 0.005) {
            self.spurt = spurt
            self.gap = gap
            self.fade = fade
        }
    }

    /// 1 (mono) or 2 (stereo, the same tone in both channels).
    public let channels: Int
    /// Tone frequency in Hz.
    public let frequency: Double
    /// Peak amplitude as a fraction of full scale (0–1).
    public let amplitude: Double
    /// When the tone sounds.
    public let pattern: Pattern
    /// The seed of the talk pattern.
    public let seed: UInt64
    /// The index (per channel) of the next sample ``next(frameCount:)`` produces.
    public private(set) var position = 0
    private var schedule: Schedule

    /// The frequency of participant `index`: 300 Hz + 120 Hz × `index`, far enough apart
    /// for a Goertzel filter over 20 ms to tell neighbours apart.
    public static func frequency(forIndex index: Int) -> Double { 300 + 120 * Double(index) }

    /// A source of `frequency` Hz at `amplitude` (fraction of full scale).
    public init(frequency: Double, amplitude: Double = 0.5, channels: Int = 1, pattern: Pattern = .speech, seed: UInt64 = 0) {
        precondition(channels == 1 || channels == 2, "Confer audio is mono or stereo")
        precondition(frequency > 0 && frequency < Double(conferSampleRate) / 2, "the tone must be below Nyquist")
        self.frequency = frequency
        self.amplitude = max(0, min(1, amplitude))
        self.channels = channels
        self.pattern = pattern
        self.seed = seed
        schedule = Schedule(pattern: pattern, seed: seed)
    }

    /// The source of participant `index`, at ``frequency(forIndex:)``.
    public init(index: Int, amplitude: Double = 0.5, channels: Int = 1, pattern: Pattern = .speech, seed: UInt64 = 0) {
        self.init(frequency: Self.frequency(forIndex: index), amplitude: amplitude, channels: channels,
                  pattern: pattern, seed: seed)
    }

    /// The next `frameCount` samples per channel, in a new frame.
    public mutating func next(frameCount: Int) -> AudioFrame {
        var frame = AudioFrame(silenceOf: frameCount, channels: channels)
        fill(into: &frame)
        return frame
    }

    /// Overwrites `frame` (in its own length and channel count) with the next samples and
    /// stamps it; allocates nothing when `frame`'s storage is not shared.
    public mutating func fill(into frame: inout AudioFrame) {
        let count = frame.frameCount, frameChannels = frame.channels
        frame.timestamp = Timestamp(microseconds: Int64(position) * 1_000_000 / Int64(conferSampleRate))
        let omega = 2 * Double.pi * frequency / Double(conferSampleRate)
        let peak = amplitude * 32767
        var schedule = self.schedule
        let start = position
        frame.samples.withUnsafeMutableBufferPointer { out in
            for i in 0..<count {
                let n = start + i
                let gain = schedule.gain(at: n)
                let value = gain == 0 ? 0 : Int16((peak * gain * Math.sine(omega * Double(n))).rounded())
                for c in 0..<frameChannels { out[i * frameChannels + c] = value }
            }
        }
        self.schedule = schedule
        position += count
    }

    /// Whether the tone sounds at sample `index` (fades included).
    public func isTalking(atSample index: Int) -> Bool {
        guard index >= 0 else { return false }
        var fresh = Schedule(pattern: pattern, seed: seed)
        return fresh.isInSpurt(index)
    }

    /// Whether the tone sounds at `time` after the first sample.
    public func isTalking(at time: Timestamp) -> Bool {
        isTalking(atSample: Int(time.ticks(rate: conferSampleRate)))
    }

    /// The spurts (as sample ranges) that begin before sample `end`.
    public func talkSpurts(before end: Int) -> [Range<Int>] {
        var fresh = Schedule(pattern: pattern, seed: seed)
        return fresh.spurts(before: end)
    }
}

/// The seeded spurt/gap sequence, walked forwards with a cursor so consecutive samples
/// cost O(1) and no storage grows.
private struct Schedule: Sendable {
    let lengths: ToneSource.TalkSpurts?
    var random: SeededRandom
    /// The current spurt and where the one after it starts; with no pattern, one endless spurt.
    var spurtStart = 0
    var spurtEnd = Int.max
    var nextSpurtStart = Int.max
    var fadeLength = 1

    init(pattern: ToneSource.Pattern, seed: UInt64) {
        random = SeededRandom(seed: seed)
        switch pattern {
        case .continuous:
            lengths = nil
        case let .talkSpurts(lengths):
            self.lengths = lengths
            fadeLength = max(1, Int(lengths.fade * Double(conferSampleRate)))
            spurtEnd = draw(lengths.spurt)
            nextSpurtStart = spurtEnd + draw(lengths.gap)
        }
    }

    /// Moves the cursor forward to the last spurt that starts at or before `n` (never back:
    /// `fill` asks about increasing samples, and queries start from a fresh schedule).
    mutating func seek(_ n: Int) {
        guard let lengths else { return }
        while n >= nextSpurtStart {
            spurtStart = nextSpurtStart
            spurtEnd = spurtStart + draw(lengths.spurt)
            nextSpurtStart = spurtEnd + draw(lengths.gap)
        }
    }

    mutating func isInSpurt(_ n: Int) -> Bool {
        seek(n)
        return n >= spurtStart && n < spurtEnd
    }

    /// The envelope at sample `n`: 0 in gaps, 1 inside spurts, a raised-cosine ramp at each end.
    mutating func gain(at n: Int) -> Double {
        guard lengths != nil else { return 1 }
        guard isInSpurt(n) else { return 0 }
        let edge = min(n - spurtStart, spurtEnd - 1 - n)
        guard edge < fadeLength else { return 1 }
        return 0.5 - 0.5 * Math.cosine(Double.pi * Double(edge + 1) / Double(fadeLength + 1))
    }

    mutating func spurts(before end: Int) -> [Range<Int>] {
        guard lengths != nil else { return end > 0 ? [0..<Int.max] : [] }
        var result: [Range<Int>] = []
        while spurtStart < end {
            result.append(spurtStart..<spurtEnd)
            seek(nextSpurtStart)
        }
        return result
    }

    private mutating func draw(_ range: ClosedRange<Double>) -> Int {
        let seconds = range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
        return max(1, Int(seconds * Double(conferSampleRate)))
    }
}
