import Foundation
import Testing
@testable import Confer
import ConferMedia
import ConferMixer
@testable import ConferJobs

/// Segment-parallel mixes: the stream cut into equal segments that start with keyframes,
/// composed and encoded by several workers, written in order.
@Suite struct MixSegmentTests {
    /// Four test-card clips of `frames` frames, 160×90, for a 320×180 grid.
    func clips(_ dir: TemporaryDirectory, frames: Int) throws -> [String] {
        try (0..<4).map { try dir.clip("in\($0).y4m", index: $0, frames: frames, width: 160, height: 90) }
    }

    func options(codec: Codec = .vp8, keyframeInterval: Int, cores: Int) -> MixOptions {
        var options = MixOptions(width: 320, height: 180, codec: codec, bitrateKbps: 250, keyframeInterval: keyframeInterval)
        options.coresProbe = { cores }
        return options
    }

    /// Every canvas `composer` makes, copied off its pool.
    func canvases(of composer: MixComposer) throws -> [VideoFrame] {
        var frames: [VideoFrame] = []
        while let canvas = try composer.next() {
            let copy = MutableVideoFrame(layout: canvas.layout, timestamp: canvas.timestamp)
            copy.copyPixels(from: canvas)
            frames.append(copy.finish())
        }
        return frames
    }

    /// The frames of an encoded file that are keyframes, by index.
    func keyframeIndices(of path: String) throws -> [Int] {
        var frame = EncodedFrame(codec: .vp8)
        var indices: [Int] = []
        var index = 0
        if path.hasSuffix(".ivf") {
            let reader = try IVFReader(source: try FileByteSource(path: path))
            while try reader.read(into: &frame) {
                // RFC 6386 §9.1: bit 0 of the frame tag is 0 for a keyframe.
                if let first = frame.data.first, first & 1 == 0 { indices.append(index) }
                index += 1
            }
        } else {
            let reader = try AnnexBReader(source: try FileByteSource(path: path))
            while try reader.read(into: &frame) {
                if frame.isKeyframe { indices.append(index) }
                index += 1
            }
        }
        return indices
    }

    /// Every decoded frame shows each clip's colour in its quadrant with the frame counter of
    /// its position in the file, so the segments were written complete and in order.
    func expectGridInOrder(_ path: String, frames count: Int) throws {
        let frames = try TemporaryDirectory.frames(of: path)
        #expect(frames.count == count)
        for (k, frame) in frames.enumerated() {
            for (i, slot) in quadrants(width: 320, height: 180).enumerated() {
                let color = TestPatternSource.readColor(from: frame, in: slot)
                #expect(color.distance(to: TestPalette.color(at: i)) < 12, "frame \(k) slot \(i): \(color)")
                #expect(TestPatternSource.readFrameCounter(from: frame, in: slot) == k, "frame \(k) slot \(i)")
            }
        }
    }

    @Test func segmentsAreEqualStartWithKeyframesAndAreWrittenInOrder() throws {
        let dir = try TemporaryDirectory("mix-segments")
        let inputs = try clips(dir, frames: 35)
        let output = dir.file("grid.ivf")
        var progress: [Int] = []
        let report = try MixJob.run(inputs: inputs, output: output, options: options(keyframeInterval: 10, cores: 2)) { done, total in
            #expect(total == 35)
            progress.append(done)
        }
        // 35 frames need four segments within the interval of 10; four of 9 share evenly.
        #expect(report.pipeline.segmentWorkers == 2)
        #expect(report.pipeline.segments == 4 && report.pipeline.segmentFrames == 9)
        #expect(report.framesComposed == 35 && report.framesWritten + report.framesDropped == 35)
        #expect(report.compositor.copiedSlots == 4 * 35)
        #expect(report.inputs.map(\.framesRead) == [35, 35, 35, 35])
        #expect(report.keyframes == 4)
        #expect(progress == Array(1...35))
        #expect(try keyframeIndices(of: output) == [0, 9, 18, 27])
        try expectGridInOrder(output, frames: report.framesWritten)

        // The same mix as one stream, keyframes every 10 frames, has about the same quality.
        let single = dir.file("single.ivf")
        var one = options(keyframeInterval: 10, cores: 2)
        // One thread, as each segment's encoder has: automatic threads would depend on the machine's load.
        one.threads = 1
        let reference = try MixJob.run(inputs: inputs, output: single, options: one)
        #expect(reference.pipeline.segmentWorkers == 0 && reference.pipeline.segments == 0)
        #expect(reference.pipeline.encoderThreads == 1)
        #expect(try keyframeIndices(of: single) == [0, 10, 20, 30])
        let raw = dir.file("grid.y4m")
        _ = try MixJob.run(inputs: inputs, output: raw, options: MixOptions(width: 320, height: 180))
        let truth = try TemporaryDirectory.frames(of: raw)
        func meanPSNR(_ path: String) throws -> Double {
            let decoded = try TemporaryDirectory.frames(of: path)
            return try zip(truth, decoded).reduce(0) { $0 + (try QualityMetrics.psnr($1.0, $1.1).frame) } / Double(decoded.count)
        }
        let segmented = try meanPSNR(output), whole = try meanPSNR(single)
        #expect(segmented > 30 && abs(segmented - whole) < 1.5, "\(segmented) dB against \(whole) dB")
    }

    /// Three workers (four segments within the interval of 8, rounded up to six of 5 so all
    /// three have two); two workers of four cores when the interval makes two segments; and
    /// a short last segment.
    @Test(arguments: [(frames: 30, interval: 8, cores: 3, workers: 3, keyframes: [0, 5, 10, 15, 20, 25]),
                      (frames: 20, interval: 10, cores: 4, workers: 2, keyframes: [0, 10]),
                      (frames: 29, interval: 8, cores: 2, workers: 2, keyframes: [0, 8, 16, 24])])
    func segmentPlans(frames: Int, interval: Int, cores: Int, workers: Int, keyframes: [Int]) throws {
        let dir = try TemporaryDirectory("mix-segment-plans")
        let inputs = try clips(dir, frames: frames)
        let output = dir.file("grid.ivf")
        let report = try MixJob.run(inputs: inputs, output: output, options: options(keyframeInterval: interval, cores: cores))
        #expect(report.pipeline.segmentWorkers == workers)
        #expect(report.pipeline.segments == keyframes.count && report.framesComposed == frames)
        #expect(try keyframeIndices(of: output) == keyframes)
        try expectGridInOrder(output, frames: frames)
    }

    /// Segment workers encode for a file: at a bitrate far too low for the grid, every
    /// frame is still encoded, where the real-time tuning of a one-stream mix drops frames.
    @Test func segmentWorkersEncodeEveryFrame() throws {
        let dir = try TemporaryDirectory("mix-segments-every-frame")
        let inputs = try clips(dir, frames: 60)
        var starved = options(keyframeInterval: 30, cores: 2)
        starved.bitrateKbps = 10
        let segmented = try MixJob.run(inputs: inputs, output: dir.file("segments.ivf"), options: starved)
        #expect(segmented.pipeline.segmentWorkers == 2)
        #expect(segmented.framesDropped == 0 && segmented.framesWritten == 60)
        starved.threads = 1
        let one = try MixJob.run(inputs: inputs, output: dir.file("one.ivf"), options: starved)
        #expect(one.pipeline.segmentWorkers == 0)
        #expect(one.framesDropped > 0, "the real-time tuning was expected to drop frames at 10 kbit/s")
    }

    @Test func h264SegmentsMakeOneDecodableStream() throws {
        let dir = try TemporaryDirectory("mix-segments-h264")
        let inputs = try clips(dir, frames: 25)
        let output = dir.file("grid.h264")
        let report = try MixJob.run(inputs: inputs, output: output, options: options(codec: .h264, keyframeInterval: 10, cores: 2))
        #expect(report.pipeline.segments == 4 && report.keyframes == 4)
        #expect(try keyframeIndices(of: output) == [0, 7, 14, 21])
        try expectGridInOrder(output, frames: 25)
    }

    /// A shorter input holds its last picture and then shows the placeholder exactly as in
    /// a mix made in one piece, though the worker composing the later segments skipped
    /// the frames before them.
    @Test func skippingComposesTheSameCanvases() throws {
        let dir = try TemporaryDirectory("mix-skip")
        var inputs = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 40, width: 160, height: 90) }
        inputs.append(try dir.clip("short.y4m", index: 2, frames: 6, width: 160, height: 90))
        inputs.append(try dir.clip("slow.y4m", index: 3, frames: 20, width: 160, height: 90, fps: 15))
        let options = MixOptions(width: 320, height: 180, placeholderTimeout: .milliseconds(300))
        let reference = try canvases(of: try MixComposer(inputs: inputs, options: options))
        #expect(reference.count == 40)
        for start in [1, 5, 13, 17, 30, 39] {
            let skipping = try MixComposer(inputs: inputs, options: options)
            #expect(try skipping.skip(to: start))
            let canvas = try #require(try skipping.next())
            #expect(canvas.timestamp == reference[start].timestamp)
            let errors = try QualityMetrics.sumSquaredErrors(reference[start], canvas)
            #expect(errors.y == 0 && errors.u == 0 && errors.v == 0, "frame \(start)")
            #expect(skipping.framesComposed == 1)
        }
        let past = try MixComposer(inputs: inputs, options: options)
        #expect(try !past.skip(to: 41))
        #expect(try past.next() == nil)
    }

    /// The speaker layout driven by a replayed audio mix: a composer that skipped to any
    /// frame draws what one hearing the audio as it went drew, through the speaker switch.
    @Test func replayedSpeakersComposeTheSameCanvases() throws {
        let dir = try TemporaryDirectory("mix-replay")
        let videos = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 90, width: 160, height: 90) }
        let tones = try MixJobTests().twoTurns(dir)
        let options = MixOptions(layout: .speaker, width: 320, height: 180, audioInputs: tones)
        let participants = [ParticipantID(0), ParticipantID(1)]
        func audio() throws -> MixAudio {
            try MixAudio(inputs: tones, output: nil, participants: participants, maxDuration: nil)
        }
        let live = try MixComposer(inputs: videos, options: options)
        live.speakers = .live(try audio())
        let reference = try canvases(of: live)
        #expect(reference.count == 90)
        let timeline = try audio().mixAll()
        #expect(timeline.changes.count >= 2 && timeline.changes.first?.speaker == participants[0])
        // The frame that first shows the switch to participant 1, and those around it.
        let switchFrame = try #require(timeline.changes.first { $0.speaker == participants[1] }).step * 10 / 33 + 1
        for start in [0, 1, 20, switchFrame - 1, switchFrame, switchFrame + 1, 89] {
            let replaying = try MixComposer(inputs: videos, options: options)
            replaying.speakers = .replayed(timeline)
            #expect(try replaying.skip(to: start))
            let canvas = try #require(try replaying.next())
            let errors = try QualityMetrics.sumSquaredErrors(reference[start], canvas)
            #expect(errors.y == 0 && errors.u == 0 && errors.v == 0, "frame \(start)")
        }
        // The speaker layout changed between the first frame and the last.
        #expect(try QualityMetrics.sumSquaredErrors(reference[20], reference[89]).y > 0)
    }

    /// With audio, the mix file and the speaking figures are those of a mix made in one piece.
    @Test func segmentsWithAudioWriteTheSameMix() throws {
        let dir = try TemporaryDirectory("mix-segments-audio")
        let videos = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 90, width: 160, height: 90) }
        let tones = try MixJobTests().twoTurns(dir)
        func mix(segmented: Bool) throws -> (MixReport, [UInt8]) {
            var options = options(keyframeInterval: 30, cores: 2)
            options.layout = .speaker
            options.audioInputs = tones
            options.audioOutput = dir.file("mix-\(segmented).wav")
            options.segmented = segmented
            if !segmented { options.threads = 1 }
            let report = try MixJob.run(inputs: videos, output: dir.file("out-\(segmented).ivf"), options: options)
            return (report, Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("mix-\(segmented).wav")))))
        }
        let (parallel, parallelMix) = try mix(segmented: true)
        let (whole, wholeMix) = try mix(segmented: false)
        #expect(parallel.pipeline.segmentWorkers == 2 && parallel.pipeline.segments == 4)
        #expect(whole.pipeline.segmentWorkers == 0)
        #expect(parallelMix == wholeMix && parallelMix.count > 3 * 96_000)
        #expect(parallel.audio?.speakerChanges == whole.audio?.speakerChanges)
        #expect(parallel.audio?.speakingSeconds == whole.audio?.speakingSeconds)
        #expect(parallel.framesWritten == 90 && parallel.compositor.layoutChanges == whole.compositor.layoutChanges)
    }

    @Test func aBadInputStopsEveryWorkerWithItsError() throws {
        let dir = try TemporaryDirectory("mix-segments-bad")
        var inputs = try clips(dir, frames: 30)
        // Cut the last clip in the middle of frame 25: both workers read that far.
        let data = try Data(contentsOf: URL(fileURLWithPath: inputs[3]))
        let frameBytes = 160 * 90 * 3 / 2 + 6
        let header = data.firstIndex(of: 0x0A)! + 1
        try data.prefix(header + 25 * frameBytes + 100).write(to: URL(fileURLWithPath: dir.file("cut.y4m")))
        inputs[3] = dir.file("cut.y4m")
        let workers = MixSegmentWorkerCount()
        let error = MixSegmentWorkerCount.$current.withValue(workers) {
            #expect(throws: (any Error).self) {
                try MixJob.run(inputs: inputs, output: dir.file("grid.ivf"), options: options(keyframeInterval: 10, cores: 2))
            }
        }
        // The reader's own error for the cut frame, whichever worker met it first: both read
        // the same bytes (the frame header is "FRAME\n", then 94 of the frame's 21600 bytes).
        #expect(error as? MediaFileError == MediaFileError(
            .truncated, format: "Y4M", offset: header + 25 * frameBytes + 6, "frame 25 has 94 of 21600 bytes"), "\(String(describing: error))")
        // Both workers ran, and neither is still running once the mix has returned.
        #expect(workers.started == 2)
        #expect(workers.running == 0)
    }

    /// Segments are equal, within the interval, and as many for every worker, whatever the
    /// mix's length; unknown lengths are cut at the interval.
    @Test func segmentPlansShareTheWorkEvenly() {
        func plan(frames: Int?, cores: Int = 2) -> MixSegments.Plan? {
            MixSegments.plan(options: MixOptions(), codec: .vp8, expectedFrames: frames, cores: cores)
        }
        #expect(plan(frames: 120) == .init(workers: 2, segmentFrames: 60))
        #expect(plan(frames: 180) == .init(workers: 2, segmentFrames: 90))
        #expect(plan(frames: 300) == .init(workers: 2, segmentFrames: 75))
        #expect(plan(frames: 1800) == .init(workers: 2, segmentFrames: 113))
        #expect(plan(frames: 300, cores: 3) == .init(workers: 3, segmentFrames: 100))
        #expect(plan(frames: nil) == .init(workers: 2, segmentFrames: 128))
        #expect(plan(frames: 95) == nil)
        for frames in [96, 121, 257, 599, 1800, 7777] {
            for cores in [2, 3, 4, 8] {
                guard let plan = plan(frames: frames, cores: cores) else { Issue.record("\(frames) frames, \(cores) cores"); continue }
                let segments = (frames + plan.segmentFrames - 1) / plan.segmentFrames
                #expect(plan.segmentFrames <= 128, "\(frames) frames, \(cores) cores")
                #expect(plan.segmentFrames >= 48 || segments * 48 > frames, "\(frames) frames, \(cores) cores")
                // Every worker gets the same number of segments, give or take the short last one.
                #expect(segments % plan.workers == 0 || (segments + 1) % plan.workers == 0, "\(frames) frames, \(cores) cores: \(plan)")
            }
        }
    }

    @Test func whenAMixIsOneStream() {
        func workers(_ change: (inout MixOptions) -> Void = { _ in }, codec: Codec? = .vp8, frames: Int? = 300,
                     cores: Int = 2) -> Int {
            var options = MixOptions()
            change(&options)
            return MixSegments.workers(options: options, codec: codec, expectedFrames: frames, cores: cores)
        }
        #expect(workers() == 2)
        // 300 frames need three segments of at most 128; four cores take four of 75.
        #expect(workers(cores: 4) == 4)
        // 120 frames: two of 60 (each at least 48 long), not one stream.
        #expect(workers(frames: 120) == 2)
        #expect(workers(frames: nil, cores: 16) == MixSegments.maximumWorkers)
        #expect(workers(codec: nil) == 0)
        #expect(workers(frames: 95) == 0)
        #expect(workers(cores: 1) == 0)
        #expect(workers { $0.threads = 2 } == 0)
        #expect(workers { $0.keyframeInterval = 0 } == 0)
        #expect(workers { $0.audioInputs = ["a.wav"] } == 2)
        #expect(workers { $0.pipelined = false } == 0)
        #expect(workers { $0.segmented = false } == 0)
    }
}
