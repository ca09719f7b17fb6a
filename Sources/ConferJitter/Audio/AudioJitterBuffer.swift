public import ConferCodecs
public import ConferMedia
public import ConferRTP

/// An adaptive audio jitter buffer for one Opus stream, modelled on libwebrtc's NetEQ:
/// packets go in as they arrive, and exactly 10 ms of audio comes out of every pull.
///
/// - **Input** (``insert(sequenceNumber:rtpTimestamp:payload:arrival:)``): sequence numbers
///   and timestamps are unwrapped; duplicates, packets already played out, undecodable
///   payloads and packets far outside the stream are counted and dropped; storage is a
///   fixed pool of slots, and overflowing it flushes down to the target delay.
/// - **Output** (``pull(at:into:)``): each pull takes 10 ms from a FIFO of decoded audio,
///   refilled by a decision each step, as NetEQ's decision logic does: *normal* decoding
///   when the next packet is there; Opus in-band *FEC* from the following packet when the
///   next is missing and its successor carries LBRR; Opus *PLC* ("expand") otherwise,
///   fading after 50 ms into comfort noise by 200 ms; *comfort noise* when the sender is in
///   DTX or stops with no loss; a short *merge* cross-fade from concealment or noise back
///   into decoded audio; and *accelerate* / *preemptive expand* (pitch-period removal or
///   insertion with a cross-fade, see ``TimeStretcher``) when the delay is above or below
///   the target.
/// - **Target delay**: the configured quantile of the packets' relative arrival delay
///   (``DelayEstimator``), plus one 10 ms pull, at least one packet plus a pull while the
///   stream carries FEC (so the packet after a lost one is there in time), bounded by the
///   minimum and maximum delay. It is the wait a packet that arrives with the least delay
///   should have before it plays; the buffer measures that wait on every packet and
///   time-stretches toward the target.
///
/// Nothing waits or reads a clock: every arrival and pull time is passed in, so tests run
/// in virtual time. A value with one owner; steady-state inserts and pulls allocate nothing
/// (use ``pull(at:into:)`` with a reused frame).
public struct AudioJitterBuffer: ~Copyable {
    /// Sample frames per pull: 10 ms at 48 kHz.
    public static let framesPerPull = 480
    /// Cross-fade length of a merge: 5 ms.
    static let mergeFrames = 240
    /// Concealment plays at full level this long, then fades.
    static let expandFadeStart = 2400
    /// …and is only comfort noise from here on (200 ms).
    static let expandFadeEnd = 9600
    /// After this much concealment of a gap behind which packets wait, skip to them.
    static let maximumConcealmentBeforeSkip: Int64 = 4800
    /// Concealment quieter than this (−60 dBov, sample units) counts as silent.
    static let silentRMS: Float = 32.8
    /// A sequence-number jump beyond this is outside the stream (RFC 3550's MAX_DROPOUT).
    static let maximumSequenceJump: Int64 = 3000

    /// The configuration in force, normalized.
    public let configuration: AudioJitterBufferConfiguration

    var decoder: OpusDecoder
    var packets: AudioJitterBufferPacketStore
    var queue: AudioJitterBufferSampleQueue
    var delayEstimator: DelayEstimator
    var stretcher: TimeStretcher
    var noise: ComfortNoiseGenerator
    var sequences = AudioJitterBufferSequenceTracker()
    var counters = AudioReceiveStatistics()
    var sequenceUnwrapper = SequenceUnwrapper()
    var timestampUnwrapper = TimestampUnwrapper()
    /// Scratch for one pull's worth of concealment and of noise.
    let scratch: UnsafeMutableBufferPointer<Int16>
    let noiseScratch: UnsafeMutableBufferPointer<Int16>

    // Timeline.
    /// The timestamp of the next audio to decode; nil while not playing.
    var playout: Int64?
    /// Samples synthesized since `playout` for audio that has not arrived.
    var concealedAhead: Int64 = 0
    /// Sequence number of the last packet played (or recovered).
    var lastSequence: Int64 = 0
    /// The last accepted timestamp, the stream's position while nothing plays.
    var lastTimestamp: Int64?
    var hasPlayed = false
    /// Whether the last packet played was a DTX packet: silence until the next one is expected.
    var inDTX = false
    /// Consecutive concealed frames, for the fade to comfort noise.
    var expandFrames = 0
    /// How much of the last appended audio was real (1) rather than comfort noise (0);
    /// below 1 the next decoded audio merges in.
    var realGain: Float = 1

    // Delay control.
    var minimumDelayMicroseconds: Int64
    /// Measured wait of a packet with the least delay, in microseconds.
    var currentDelay: Double?
    var stretchMode = StretchMode.none
    var lastPull: Timestamp?
    var latestArrival: Timestamp = .zero
    var fecSeenAt: Timestamp?
    var lastPacketFrames = 960
    var restartCandidate: (sequence: UInt16, timestamp: UInt32)?
    var lastTransit: Double?
    var jitter = 0.0
    var levelEnergies = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    var levelIndex = 0
    var levelCount = 0

    /// Whether the delay is being moved toward the target.
    enum StretchMode { case none, accelerating, expanding }

    /// A buffer for a stream decoded to `configuration.channels` channels.
    /// - Throws: when libopus refuses the channel count (only 1 and 2 are valid).
    public init(configuration: AudioJitterBufferConfiguration = AudioJitterBufferConfiguration()) throws(OpusError) {
        let configuration = configuration.normalized()
        decoder = try OpusDecoder(channels: configuration.channels)
        self.configuration = configuration
        let channels = configuration.channels
        packets = AudioJitterBufferPacketStore(capacity: configuration.maximumPackets,
                                               payloadCapacity: min(configuration.maximumPayloadSize, 1500))
        let historyLimit = TimeStretcher.maximumPeriod + 2 * TimeStretcher.decimation
        // The longest packet, two periods to accelerate over, a pull, and the history.
        queue = AudioJitterBufferSampleQueue(channels: channels,
                                             capacity: OpusPacketInfo.maximumFrameCount + 4 * TimeStretcher.maximumPeriod
                                                 + 2 * Self.framesPerPull + historyLimit,
                                             historyLimit: historyLimit)
        delayEstimator = DelayEstimator(maximumDelay: configuration.maximumDelay, quantile: configuration.delayQuantile,
                                        halfLife: configuration.delayHistoryHalfLife, window: configuration.delayWindow)
        stretcher = TimeStretcher()
        noise = ComfortNoiseGenerator(floor: configuration.comfortNoiseFloor, ceiling: configuration.comfortNoiseCeiling,
                                      seed: configuration.seed)
        scratch = .allocate(capacity: Self.framesPerPull * channels)
        scratch.initialize(repeating: 0)
        noiseScratch = .allocate(capacity: Self.framesPerPull * channels)
        noiseScratch.initialize(repeating: 0)
        minimumDelayMicroseconds = configuration.minimumDelay.microseconds
    }

    deinit {
        scratch.deallocate()
        noiseScratch.deallocate()
    }

    /// Output channel count.
    public var channels: Int { configuration.channels }

    /// The least target delay; raise it to hold audio back (for lip sync, say) and the
    /// buffer grows its delay by preemptive expansion, lower it and it accelerates back.
    /// Clamped to the configured maximum.
    public var minimumDelay: TimeDelta {
        get { TimeDelta(microseconds: minimumDelayMicroseconds) }
        set { minimumDelayMicroseconds = min(max(newValue.microseconds, 0), configuration.maximumDelay.microseconds) }
    }

    /// Whether packets are being played (false before the first starts, and after a restart
    /// until the new stream has buffered its target).
    public var isPlaying: Bool { playout != nil }

    /// The target delay now: how long a packet that arrives with the least delay should
    /// wait before it plays.
    public var targetDelay: TimeDelta { TimeDelta(microseconds: targetDelayMicroseconds) }

    /// The audio held now, decoded and in packets.
    public var bufferLevel: TimeDelta { TimeDelta(microseconds: Self.microseconds(frames: bufferedFrames)) }

    /// The counters so far, with the current level, target and audio level.
    public var statistics: AudioReceiveStatistics {
        var result = counters
        result.packetsLost = sequences.lost
        result.jitter = jitter
        result.bufferLevel = bufferLevel.seconds
        result.targetDelay = targetDelay.seconds
        result.currentDelay = (currentDelay ?? 0) / 1_000_000
        // Slots not yet written hold zero.
        let e = levelEnergies
        let sum = e.0 + e.1 + e.2 + e.3 + e.4 + e.5 + e.6 + e.7 + e.8 + e.9
        result.audioLevel = levelCount == 0 ? 0 : min(1, (sum / Double(levelCount * Self.framesPerPull)).squareRoot())
        return result
    }

    /// Stores one Opus packet that arrived at `arrival`.
    @discardableResult
    public mutating func insert(sequenceNumber: UInt16, rtpTimestamp: UInt32, payload: [UInt8],
                                arrival: Timestamp) -> AudioJitterBufferInsertOutcome {
        payload.withUnsafeBytes { bytes in
            insert(sequenceNumber: sequenceNumber, rtpTimestamp: rtpTimestamp, payloadBytes: bytes, arrival: arrival)
        }
    }

    /// Stores the Opus payload of a parsed RTP packet that arrived at `arrival`.
    @discardableResult
    public mutating func insert(_ packet: RTPPacketView, arrival: Timestamp) -> AudioJitterBufferInsertOutcome {
        insert(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, payloadBytes: packet.payload,
               arrival: arrival)
    }

    /// Fills `frame` with the next 10 ms (480 samples per channel) of audio, played at
    /// `now`; reuses its storage when it already has that shape, so steady-state pulls
    /// allocate nothing.
    public mutating func pull(at now: Timestamp, into frame: inout AudioFrame) {
        let frames = Self.framesPerPull
        if frame.channels != channels || frame.samples.count != frames * channels {
            frame = AudioFrame(silenceOf: frames, channels: channels, timestamp: now)
        }
        frame.timestamp = now
        if playout == nil { startIfReady(now: now) }
        if playout != nil { timeStretchIfNeeded(now: now) }
        refill(to: frames, now: now)
        let tally = frame.samples.withUnsafeMutableBufferPointer { output in
            queue.pop(frames, into: output, now: now)
        }
        account(tally, frame: frame)
        lastPull = now
    }

    /// The next 10 ms of audio, played at `now`, in a new frame.
    public mutating func pull(at now: Timestamp) -> AudioFrame {
        var frame = AudioFrame(silenceOf: Self.framesPerPull, channels: channels, timestamp: now)
        pull(at: now, into: &frame)
        return frame
    }

    // MARK: Shared helpers

    static func microseconds(frames: Int) -> Int64 { Int64(frames) * 125 / 6 }
    static func microseconds(frames: Int64) -> Int64 { frames * 125 / 6 }
    static func frames(microseconds: Int64) -> Int64 { microseconds * 6 / 125 }

    /// The target delay in microseconds (see the type's documentation).
    var targetDelayMicroseconds: Int64 {
        var target = delayEstimator.quantileDelay + 10_000
        if let fecSeenAt, (latestArrival - fecSeenAt).microseconds < 2_000_000 {
            target = max(target, Self.microseconds(frames: lastPacketFrames) + 10_000)
        }
        return min(max(target, minimumDelayMicroseconds), configuration.maximumDelay.microseconds)
    }

    /// Decoded frames plus the packet audio from the current position to the last packet's end.
    var bufferedFrames: Int {
        guard let end = packets.endTimestamp else { return queue.count }
        let position = playout.map { $0 + concealedAhead } ?? packets.first?.timestamp ?? end
        return queue.count + Int(clamping: max(0, end - position))
    }

    /// Accounts for one pull's output.
    mutating func account(_ tally: AudioJitterBufferSampleQueue.Tally, frame: borrowing AudioFrame) {
        let played = Self.framesPerPull - tally.silence
        counters.concealedSamples += Int64(tally.concealed + tally.silentConcealed)
        counters.silentConcealedSamples += Int64(tally.silentConcealed)
        counters.concealmentEvents += Int64(tally.concealmentEvents)
        counters.comfortNoiseSamples += Int64(tally.comfortNoise)
        counters.jitterBufferEmittedCount += Int64(tally.decoded)
        counters.jitterBufferDelay += tally.delay
        counters.jitterBufferTargetDelay += Double(tally.decoded) * Double(targetDelayMicroseconds) / 1_000_000
        guard played > 0 else { return }
        let energy = frame.samples.withUnsafeBufferPointer { AudioAnalysis.energy($0, channels: channels) } / Double(channels)
        counters.totalSamplesReceived += Int64(played)
        counters.totalSamplesDuration += Double(played) / Double(conferSampleRate)
        counters.totalAudioEnergy += energy / Double(conferSampleRate)
        switch levelIndex {
        case 0: levelEnergies.0 = energy
        case 1: levelEnergies.1 = energy
        case 2: levelEnergies.2 = energy
        case 3: levelEnergies.3 = energy
        case 4: levelEnergies.4 = energy
        case 5: levelEnergies.5 = energy
        case 6: levelEnergies.6 = energy
        case 7: levelEnergies.7 = energy
        case 8: levelEnergies.8 = energy
        default: levelEnergies.9 = energy
        }
        levelIndex = (levelIndex + 1) % 10
        levelCount = min(levelCount + 1, 10)
    }
}
