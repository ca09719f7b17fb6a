public import ConferMedia
public import ConferMixer

/// What `confer mix` makes of its inputs.
public struct MixOptions: Sendable {
    /// How the inputs are arranged.
    public var layout: MixLayout
    /// Canvas width in pixels (even).
    public var width: Int
    /// Canvas height in pixels (even).
    public var height: Int
    /// Output frames per second; inputs at other rates are sampled at this rate by timestamp.
    public var frameRate: Double
    /// The codec to encode with; nil picks the output file's natural codec (raw for `.y4m`).
    public var codec: Codec?
    /// Target bitrate in kbit/s; nil uses a default for the canvas size.
    public var bitrateKbps: Int?
    /// Encoder threads, or nil to choose: two while other work leaves a core free (or under
    /// a real-time policy), one otherwise, dropping to one mid-mix if the cores fill up
    /// (libvpx's threads spin while they wait for each other and collapse when the cores
    /// are shared; the report's ``MixReport/Pipeline`` says what was used).
    public var threads: Int?
    /// libvpx cpu-used / x264 speed.
    public var speed: Int
    /// Frames between keyframes (0: only the first). The default, 128, is libvpx's and so
    /// FFmpeg's and GStreamer's: their mixes of the same inputs have keyframes in the same places.
    public var keyframeInterval: Int
    /// Stop after this many seconds of output.
    public var maxDuration: Double?
    /// How long after an input's last frame its slot shows the placeholder instead of that frame.
    public var placeholderTimeout: TimeDelta
    /// Audio files, one per video input in the same order: mixed, and their speaking
    /// detector drives the speaker highlight and the speaker-led layouts.
    public var audioInputs: [String]
    /// Where to write the audio mix (`.wav` or `.opus`); needs ``audioInputs``.
    public var audioOutput: String?
    /// Read and composite on a second thread while the calling thread encodes and writes.
    public var pipelined: Bool
    /// Composed frames that may wait for the encoder (the pipeline's ring of canvases).
    public var queueDepth: Int
    /// Encode keyframe-to-keyframe segments side by side, one worker thread per core, when
    /// the mix allows it (see ``MixReport/Pipeline/segmentWorkers``): an encoded output, a
    /// keyframe interval, automatic threads, pipelined.
    public var segmented: Bool
    /// Online cores, which bound the segment workers (tests replace it).
    var coresProbe: @Sendable () -> Int = { MixEncoderThreads.processorCount() }
    /// How automatic thread choice counts running tasks (tests replace it).
    var runningTasksProbe: MixEncoderThreads.Probe = { MixEncoderThreads.runningTasks(samples: $0) }
    /// Whether automatic thread choice sees a real-time scheduling policy (tests replace it).
    var realTimeProbe: @Sendable () -> Bool = { MixEncoderThreads.isRealTime() }

    /// Defaults: a 1280×720 grid at 30 fps, the output's natural codec at an automatic
    /// bitrate, automatic encoder threads, speed 8, a keyframe every 128 frames, pipelined
    /// with three frames in flight, segments encoded side by side where the mix allows.
    public init(layout: MixLayout = .grid, width: Int = 1280, height: Int = 720, frameRate: Double = 30,
                codec: Codec? = nil, bitrateKbps: Int? = nil, threads: Int? = nil, speed: Int = 8,
                keyframeInterval: Int = 128, maxDuration: Double? = nil, placeholderTimeout: TimeDelta = .seconds(1),
                audioInputs: [String] = [], audioOutput: String? = nil, pipelined: Bool = true, queueDepth: Int = 3,
                segmented: Bool = true) {
        self.layout = layout
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.codec = codec
        self.bitrateKbps = bitrateKbps
        self.threads = threads
        self.speed = speed
        self.keyframeInterval = keyframeInterval
        self.maxDuration = maxDuration
        self.placeholderTimeout = placeholderTimeout
        self.audioInputs = audioInputs
        self.audioOutput = audioOutput
        self.pipelined = pipelined
        self.queueDepth = queueDepth
        self.segmented = segmented
    }
}

/// What a mix did.
public struct MixReport: Codable, Sendable {
    /// One video input.
    public struct Input: Codable, Sendable {
        /// The file.
        public var path: String
        /// Its format and codec, as probed.
        public var format: String
        /// Picture width.
        public var width: Int
        /// Picture height.
        public var height: Int
        /// Its frame rate.
        public var frameRate: Double
        /// Pictures read (decoded) from it.
        public var framesRead: Int
    }

    /// How the work was split between threads, and who waited for whom.
    public struct Pipeline: Codable, Sendable {
        /// Whether reading and compositing ran on their own thread.
        public var pipelined: Bool
        /// Encoder threads at the start.
        public var encoderThreads: Int
        /// The frame from which the encoder ran on one thread because other work appeared
        /// on the cores (automatic threads only), or nil.
        public var droppedToOneThreadAtFrame: Int?
        /// Composed frames that could wait for the encoder.
        public var queueDepth: Int
        /// Seconds the reading and compositing side spent waiting for a free canvas (the
        /// encoder was the bottleneck).
        public var producerWaitSeconds: Double
        /// Seconds the encoding side spent waiting for a composed frame (reading and
        /// compositing were the bottleneck).
        public var consumerWaitSeconds: Double
        /// Canvas buffers the compositor's pool allocated: at most `queueDepth + 2` (queued,
        /// being encoded, being composed), however long the mix.
        public var canvasBuffers: Int
        /// Canvases made outside the pool because every buffer was in use (should be 0).
        public var canvasOverflows: Int
        /// Worker threads that each composed and encoded every n-th keyframe-to-keyframe
        /// segment with a one-thread encoder (0: one encoder made the whole stream).
        public var segmentWorkers: Int
        /// Segments written (0 when not segmented).
        public var segments: Int
        /// Frames per segment, the distance between its keyframes (0 when not segmented).
        public var segmentFrames: Int = 0
    }

    /// The video inputs, in slot order.
    public var inputs: [Input]
    /// The output file, or nil when the output was discarded.
    public var output: String?
    /// The layout used.
    public var layout: String
    /// The output's codec ("i420" when not encoded).
    public var outputCodec: String
    /// Canvas width.
    public var width: Int
    /// Canvas height.
    public var height: Int
    /// Output frames per second.
    public var frameRate: Double
    /// Canvases composed.
    public var framesComposed: Int
    /// Frames written (or encoded, when discarded).
    public var framesWritten: Int
    /// Frames the encoder's rate control dropped.
    public var framesDropped: Int
    /// Keyframes written.
    public var keyframes: Int
    /// What the compositor drew: copied, resized and placeholder slots.
    public var compositor: VideoCompositor.Statistics
    /// Media seconds composed.
    public var mediaSeconds: Double
    /// Bytes in the output file (0 when discarded).
    public var outputBytes: Int
    /// Average bitrate of the compressed output in kbit/s (nil when not encoded).
    public var bitrateKbps: Double?
    /// The audio mix, when audio inputs were given.
    public var audio: MixAudioReport?
    /// The threads and their waits.
    public var pipeline: Pipeline
    /// Wall-clock seconds the job took.
    public var wallSeconds: Double
    /// Output frames per wall second.
    public var speed: Double
}

/// What the audio side of a mix did.
public struct MixAudioReport: Codable, Sendable {
    /// The audio inputs, in input order.
    public var inputs: [String]
    /// The mix file, if one was written.
    public var output: String?
    /// Channels of the mix.
    public var channels: Int
    /// Seconds of audio mixed.
    public var seconds: Double
    /// Seconds each input was held as speaking, in input order.
    public var speakingSeconds: [Double]
    /// Times the highlighted speaker changed (including to and from nobody).
    public var speakerChanges: Int
    /// Times the mix's limiter had to hold the sum down.
    public var limitedSteps: Int
}

/// Composites several video files into one, as a meeting host does: each output frame lays
/// every input's latest picture out with ``VideoCompositor``, and the canvas is encoded once.
///
/// With periodic keyframes, the stream is cut at its keyframes and worker threads (one per
/// core) each compose and encode every n-th segment with a one-thread encoder, while the
/// calling thread writes the segments in order (see ``MixSegments``); the audio is mixed
/// first and its speaker highlight replayed by every worker.
/// Otherwise reading and compositing run on a second thread (``MixOptions/pipelined``),
/// handing finished canvases from a small pool to the calling thread through a bounded
/// queue; the calling thread encodes and writes. Either way, in steady state nothing is
/// allocated per frame: input pictures, canvases and encoder output are all recycled.
public enum MixJob {
    /// The most video inputs a mix takes (a 10 × 10 grid).
    public static let maximumInputs = VideoLayout.maximumSlotCount

    /// Mixes `inputs` into `output` (nil: compose, and encode if a codec is given, but
    /// write nothing). `progress(done, total)` is called on the calling thread after every
    /// frame written.
    public static func run(inputs: [String], output: String?, options: MixOptions = MixOptions(),
                           progress: (Int, Int?) -> Void = { _, _ in }) throws -> MixReport {
        try validate(inputs: inputs, options: options)
        let start = ContinuousClock.now
        let composer = try MixComposer(inputs: inputs, options: options)
        let audio = options.audioInputs.isEmpty ? nil : try MixAudio(
            inputs: options.audioInputs, output: options.audioOutput,
            participants: inputs.indices.map { ParticipantID(UInt32($0)) }, maxDuration: options.maxDuration)
        let total = composer.expectedFrameCount
        let plan = MixSegments.plan(options: options, codec: try MixSink.codec(for: output, options: options),
                                    expectedFrames: total, cores: options.coresProbe())
        let workerCount = plan?.workers ?? 0
        let sink = try MixSink(path: output, options: options, encodes: workerCount == 0)

        var producerWait = 0.0
        var consumerWait = 0.0
        // With nothing to encode or write there is nothing to overlap: the handoff would only cost.
        let pipelined = options.pipelined && !sink.isDiscarding
        var composers = [composer]
        var segments = 0
        if let plan, let codec = sink.codec {
            // The whole audio first: it is cheap next to the video, and the workers replay its highlight.
            let speakers = try audio.map { MixComposer.Speakers.replayed(try $0.mixAll()) } ?? .none
            let run = try runSegmented(inputs: inputs, options: options, codec: codec, plan: plan,
                                       first: composer, speakers: speakers, sink: sink, total: total, progress: progress)
            (composers, segments, producerWait, consumerWait) = (run.composers, run.segments, run.producerWait, run.consumerWait)
        } else {
            // One stream: the audio is mixed as the video goes, frame by frame.
            if let audio { composer.speakers = .live(audio) }
            if pipelined {
                (producerWait, consumerWait) = try runPipelined(composer, sink, options: options, total: total, progress: progress)
            } else {
                while let frame = try composer.next() {
                    try sink.write(frame)
                    progress(sink.framesIn, total)
                }
                try composer.finishAudio()
            }
        }
        try sink.finish()

        let wall = (ContinuousClock.now - start).seconds
        let framesComposed = composers.reduce(0) { $0 + $1.framesComposed }
        let media = Double(framesComposed) / options.frameRate
        let statistics = combined(composers.map(\.compositorStatistics))
        // Every worker reads every input front to back, some further than others.
        var inputReports = composer.inputReports
        for other in composers.dropFirst() {
            for (i, input) in other.inputReports.enumerated() where input.framesRead > inputReports[i].framesRead {
                inputReports[i].framesRead = input.framesRead
            }
        }
        return MixReport(
            inputs: inputReports, output: output, layout: options.layout.description,
            outputCodec: sink.codec?.rawValue ?? "i420", width: options.width, height: options.height,
            frameRate: options.frameRate, framesComposed: framesComposed, framesWritten: sink.framesOut,
            framesDropped: sink.framesDropped, keyframes: sink.keyframes, compositor: statistics,
            mediaSeconds: media, outputBytes: sink.fileBytes,
            bitrateKbps: sink.codec == nil || media == 0 ? nil : Double(sink.payloadBytes) * 8 / media / 1000,
            audio: audio?.report,
            pipeline: .init(pipelined: pipelined || workerCount > 0, encoderThreads: sink.initialThreads,
                            droppedToOneThreadAtFrame: sink.droppedToOneThreadAt, queueDepth: options.queueDepth,
                            producerWaitSeconds: producerWait, consumerWaitSeconds: consumerWait,
                            canvasBuffers: composers.reduce(0) { $0 + $1.canvasPool.allocatedCount },
                            canvasOverflows: composers.reduce(0) { $0 + $1.canvasPool.overflowCount },
                            segmentWorkers: workerCount, segments: segments, segmentFrames: plan?.segmentFrames ?? 0),
            wallSeconds: wall, speed: wall > 0 ? Double(sink.framesIn) / wall : 0)
    }

    /// The compositor counts of a mix drawn by several composers, each drawing some of the
    /// frames: the drawing adds up, while layout changes happened on every composer's own
    /// copy of the same timeline, so the most any saw stands for the mix.
    static func combined(_ parts: [VideoCompositor.Statistics]) -> VideoCompositor.Statistics {
        var total = VideoCompositor.Statistics()
        for part in parts {
            total.composedFrames += part.composedFrames
            total.copiedSlots += part.copiedSlots
            total.scaledSlots += part.scaledSlots
            total.placeholderSlots += part.placeholderSlots
            total.failedSlots += part.failedSlots
            total.layoutChanges = max(total.layoutChanges, part.layoutChanges)
        }
        return total
    }

    static func validate(inputs: [String], options: MixOptions) throws {
        guard !inputs.isEmpty else { throw JobError(.invalidOptions, "mix needs at least one video input") }
        guard inputs.count <= maximumInputs else {
            throw JobError(.invalidOptions, "\(inputs.count) video inputs; a mix takes at most \(maximumInputs)")
        }
        guard options.width >= 2, options.height >= 2, options.width % 2 == 0, options.height % 2 == 0,
              options.width <= 16384, options.height <= 16384 else {
            throw JobError(.invalidOptions, "canvas size \(options.width)x\(options.height) must be even and within 2…16384")
        }
        guard options.frameRate > 0, options.frameRate <= 240 else {
            throw JobError(.invalidOptions, "frame rate \(options.frameRate) must be within (0, 240]")
        }
        if let threads = options.threads, !(1...16).contains(threads) { throw JobError(.invalidOptions, "threads must be 1…16, not \(threads)") }
        guard options.keyframeInterval >= 0 else { throw JobError(.invalidOptions, "keyframe interval \(options.keyframeInterval) is negative") }
        guard (1...64).contains(options.queueDepth) else { throw JobError(.invalidOptions, "queue depth must be 1…64, not \(options.queueDepth)") }
        if !options.audioInputs.isEmpty && options.audioInputs.count != inputs.count {
            throw JobError(.invalidOptions, "\(options.audioInputs.count) audio inputs for \(inputs.count) video inputs: "
                           + "give one audio file per video input, in the same order")
        }
        if options.audioOutput != nil && options.audioInputs.isEmpty {
            throw JobError(.invalidOptions, "an audio mix needs audio inputs: give one --audio file per video input")
        }
    }

    /// Runs the composer on a thread of its own, feeding the sink on this one; returns the
    /// seconds each side waited for the other.
    private static func runPipelined(_ composer: MixComposer, _ sink: MixSink, options: MixOptions, total: Int?,
                                     progress: (Int, Int?) -> Void) throws -> (producer: Double, consumer: Double) {
        let handoff = MixHandoff<VideoFrame>(capacity: options.queueDepth)
        let producer = MixProducerThread(composer: composer, handoff: handoff)
        producer.start()
        var consumerWait = Duration.zero
        do {
            while true {
                let before = ContinuousClock.now
                guard let frame = try handoff.take() else { break }
                consumerWait += ContinuousClock.now - before
                try sink.write(frame)
                progress(sink.framesIn, total)
            }
        } catch {
            handoff.cancel()
            producer.join()
            throw error
        }
        producer.join()
        return (producer.waitSeconds, consumerWait.seconds)
    }
}
