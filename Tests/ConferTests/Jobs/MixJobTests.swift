import Foundation
import Dispatch
import Testing
@testable import ConferCLI
@testable import Confer
import ConferMedia
import ConferMixer
@testable import ConferJobs

/// A fresh directory under the system's temporary directory, removed when dropped.
final class TemporaryDirectory {
    let path: String

    init(_ name: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("confer-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// A test-card clip of `frames` frames in participant `index`'s colour.
    func clip(_ name: String, index: Int, frames: Int, width: Int = 320, height: Int = 180, fps: Double = 30) throws -> String {
        let path = file(name)
        _ = try Generator.run(output: path, width: width, height: height, frameRate: fps, seconds: Double(frames) / fps,
                              index: index, seed: UInt64(index + 1))
        return path
    }

    /// Every frame of a video file.
    static func frames(of path: String) throws -> [VideoFrame] {
        let reader = try VideoFileReader(path: path)
        var frames: [VideoFrame] = []
        while let frame = try reader.next() {
            // Copied off the reader's pool, which recycles only a few buffers.
            let copy = MutableVideoFrame(layout: frame.layout, timestamp: frame.timestamp)
            copy.copyPixels(from: frame)
            frames.append(copy.finish())
        }
        return frames
    }
}

/// The four quadrants of a `width` × `height` canvas, in grid order.
func quadrants(width: Int, height: Int) -> [PixelRect] {
    let w = width / 2, h = height / 2
    return [PixelRect(x: 0, y: 0, width: w, height: h), PixelRect(x: w, y: 0, width: w, height: h),
            PixelRect(x: 0, y: h, width: w, height: h), PixelRect(x: w, y: h, width: w, height: h)]
}

@Suite struct MixJobTests {
    static let placeholder = YUVColor(y: 40, u: 128, v: 128)

    func fourClips(_ dir: TemporaryDirectory, frames: Int = 12) throws -> [String] {
        try (0..<4).map { try dir.clip("in\($0).y4m", index: $0, frames: frames) }
    }

    @Test(arguments: [true, false])
    func gridPutsEachInputInItsSlotAndAdvances(pipelined: Bool) throws {
        let dir = try TemporaryDirectory("mix-grid")
        let inputs = try fourClips(dir)
        let output = dir.file("grid.y4m")
        let report = try MixJob.run(inputs: inputs, output: output,
                                    options: MixOptions(width: 640, height: 360, pipelined: pipelined))
        #expect(report.framesComposed == 12)
        #expect(report.framesWritten == 12)
        #expect(report.outputCodec == "i420")
        #expect(report.compositor.copiedSlots == 48)
        #expect(report.inputs.map(\.framesRead) == [12, 12, 12, 12])
        #expect(report.pipeline.pipelined == pipelined)
        // The ring of canvases is bounded: queued, being written, being composed.
        #expect(report.pipeline.canvasBuffers <= 3 + 2 && report.pipeline.canvasOverflows == 0)

        let frames = try TemporaryDirectory.frames(of: output)
        #expect(frames.count == 12)
        for (k, frame) in frames.enumerated() {
            #expect(frame.width == 640 && frame.height == 360)
            for (i, slot) in quadrants(width: 640, height: 360).enumerated() {
                let color = TestPatternSource.readColor(from: frame, in: slot)
                #expect(color.distance(to: TestPalette.color(at: i)) < 4, "frame \(k) slot \(i): \(color)")
                #expect(TestPatternSource.readFrameCounter(from: frame, in: slot) == k, "frame \(k) slot \(i)")
            }
        }
    }

    @Test func vp8OutputDecodesCloseToTheRawComposite() throws {
        let dir = try TemporaryDirectory("mix-vp8")
        let inputs = try fourClips(dir)
        let raw = dir.file("grid.y4m"), encoded = dir.file("grid.ivf")
        _ = try MixJob.run(inputs: inputs, output: raw, options: MixOptions(width: 640, height: 360))
        let report = try MixJob.run(inputs: inputs, output: encoded,
                                    options: MixOptions(width: 640, height: 360, codec: .vp8, bitrateKbps: 1500))
        #expect(report.outputCodec == "vp8")
        #expect(report.framesWritten == 12)
        #expect(report.keyframes == 1)
        #expect((report.bitrateKbps ?? 0) > 100)

        let reference = try TemporaryDirectory.frames(of: raw)
        let decoded = try TemporaryDirectory.frames(of: encoded)
        #expect(decoded.count == reference.count)
        for (a, b) in zip(reference, decoded) {
            let psnr = try QualityMetrics.psnr(a, b)
            #expect(psnr.frame >= 30, "PSNR \(psnr)")
        }
    }

    @Test func shorterInputHoldsItsLastFrameThenShowsThePlaceholder() throws {
        let dir = try TemporaryDirectory("mix-short")
        var inputs = try (0..<3).map { try dir.clip("in\($0).y4m", index: $0, frames: 30) }
        inputs.append(try dir.clip("short.y4m", index: 3, frames: 5))
        let output = dir.file("out.y4m")
        let report = try MixJob.run(inputs: inputs, output: output,
                                    options: MixOptions(width: 640, height: 360, placeholderTimeout: .milliseconds(500)))
        #expect(report.framesComposed == 30)
        let frames = try TemporaryDirectory.frames(of: output)
        let slots = quadrants(width: 640, height: 360)
        for (k, frame) in frames.enumerated() {
            for i in 0..<3 { #expect(TestPatternSource.readFrameCounter(from: frame, in: slots[i]) == k) }
            // Its last frame (4, at 133 ms) holds while less than 500 ms old: up to frame 18 (600 ms).
            if k < 5 {
                #expect(TestPatternSource.readFrameCounter(from: frame, in: slots[3]) == k)
            } else if k <= 18 {
                #expect(TestPatternSource.readFrameCounter(from: frame, in: slots[3]) == 4, "frame \(k)")
            } else {
                let color = TestPatternSource.readColor(from: frame, in: slots[3])
                #expect(color == Self.placeholder, "frame \(k): \(color)")
                #expect(TestPatternSource.readFrameCounter(from: frame, in: slots[3]) == nil)
            }
        }
        #expect(report.compositor.placeholderSlots == 11)
    }

    @Test func inputsAtOtherRatesAreSampledByTimestamp() throws {
        let dir = try TemporaryDirectory("mix-rates")
        let fast = try dir.clip("fast.y4m", index: 0, frames: 24, fps: 60)
        let slow = try dir.clip("slow.y4m", index: 1, frames: 6, fps: 15)
        let output = dir.file("out.y4m")
        let report = try MixJob.run(inputs: [fast, slow], output: output,
                                    options: MixOptions(width: 640, height: 180, frameRate: 30))
        #expect(report.framesComposed == 12)
        let frames = try TemporaryDirectory.frames(of: output)
        let left = PixelRect(x: 0, y: 0, width: 320, height: 180), right = PixelRect(x: 320, y: 0, width: 320, height: 180)
        for (k, frame) in frames.enumerated() {
            #expect(TestPatternSource.readFrameCounter(from: frame, in: left) == 2 * k)
            #expect(TestPatternSource.readFrameCounter(from: frame, in: right) == k / 2)
        }
    }

    @Test func picturesOfOtherSizesAreResizedIntoTheirSlots() throws {
        let dir = try TemporaryDirectory("mix-sizes")
        let small = try dir.clip("small.y4m", index: 4, frames: 3, width: 160, height: 90)
        let large = try dir.clip("large.y4m", index: 5, frames: 3, width: 640, height: 360)
        let output = dir.file("out.y4m")
        let report = try MixJob.run(inputs: [small, large], output: output, options: MixOptions(width: 640, height: 180))
        #expect(report.compositor.scaledSlots == 6 && report.compositor.copiedSlots == 0)
        let frame = try #require(try TemporaryDirectory.frames(of: output).last)
        let left = PixelRect(x: 0, y: 0, width: 320, height: 180), right = PixelRect(x: 320, y: 0, width: 320, height: 180)
        #expect(TestPatternSource.readColor(from: frame, in: left).distance(to: TestPalette.color(at: 4)) < 6)
        #expect(TestPatternSource.readColor(from: frame, in: right).distance(to: TestPalette.color(at: 5)) < 6)
        #expect(TestPatternSource.readFrameCounter(from: frame, in: left) == 2)
        #expect(TestPatternSource.readFrameCounter(from: frame, in: right) == 2)
    }

    @Test func customLayoutFromJSONFile() throws {
        let dir = try TemporaryDirectory("mix-json")
        let inputs = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 3) }
        let layoutPath = dir.file("layout.json")
        try #"{"slots": [{"x": 0, "y": 0, "width": 0.5, "height": 1, "participant": 1},"#
            .appending(#"{"x": 0.5, "y": 0, "width": 0.5, "height": 1, "participant": 0}]}"#)
            .write(toFile: layoutPath, atomically: true, encoding: .utf8)
        let output = dir.file("out.y4m")
        let report = try MixJob.run(inputs: inputs, output: output,
                                    options: MixOptions(layout: try MixLayout(argument: layoutPath), width: 640, height: 180))
        #expect(report.layout == layoutPath)
        let frame = try #require(try TemporaryDirectory.frames(of: output).last)
        let left = PixelRect(x: 0, y: 0, width: 320, height: 180), right = PixelRect(x: 320, y: 0, width: 320, height: 180)
        #expect(TestPatternSource.readColor(from: frame, in: left).distance(to: TestPalette.color(at: 1)) < 4)
        #expect(TestPatternSource.readColor(from: frame, in: right).distance(to: TestPalette.color(at: 0)) < 4)
        #expect(TestPatternSource.readFrameCounter(from: frame, in: left) == 2)
    }

    @Test func badLayoutsAreClearErrors() throws {
        let dir = try TemporaryDirectory("mix-badjson")
        let path = dir.file("bad.json")
        try #"{"slots": [{"x": 0, "y": 0, "width": 1.5, "height": 1}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: JobError.self) { try MixLayout(argument: path) }
        let text = error?.description ?? ""
        #expect(text.contains("slot 0") && text.contains("width") && text.contains(path), "\(text)")

        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: JobError.self) { try MixLayout(argument: path) }
        let missing = #expect(throws: JobError.self) { try MixLayout(argument: dir.file("missing.json")) }
        #expect(missing?.description.contains("cannot read") == true)
        let unknown = #expect(throws: JobError.self) { try MixLayout(argument: "diagonal") }
        #expect(unknown?.description.contains("unknown layout") == true)
    }

    /// Two 3 s tone files: participant 0 talks for the first 1.5 s, participant 1 for the
    /// rest, so each gets a turn as the speaker.
    func twoTurns(_ dir: TemporaryDirectory) throws -> [String] {
        try (0..<2).map { i -> String in
            let path = dir.file("tone\(i).wav")
            let writer = try WAVWriter(path: path, channels: 1)
            var tone = ToneSource(frequency: ToneSource.frequency(forIndex: i), pattern: .continuous)
            let silence = AudioFrame(silenceOf: 72_000, channels: 1)
            let talk = tone.next(frameCount: 72_000)
            for half in i == 0 ? [talk, silence] : [silence, talk] { try writer.write(half) }
            try writer.finish()
            return path
        }
    }

    @Test func theSpeakerLayoutFollowsWhoTalks() throws {
        let dir = try TemporaryDirectory("mix-speaker")
        let videos = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 90) }
        let output = dir.file("out.y4m")
        let report = try MixJob.run(inputs: videos, output: output,
                                    options: MixOptions(layout: .speaker, width: 640, height: 360,
                                                        audioInputs: try twoTurns(dir)))
        #expect(report.audio?.output == nil)
        #expect(report.audio.map { abs($0.seconds - 3) < 0.011 } == true)
        let frames = try TemporaryDirectory.frames(of: output)
        // Where the speaker's picture lands: its slot, letterboxed to the picture's shape.
        let main = { (speaker: ParticipantID) in
            let slot = VideoLayout.activeSpeaker(speaker, others: [speaker == 0 ? 1 : 0]).pixelRects(width: 640, height: 360)[0]
            return FitFill.rects(sourceWidth: 320, sourceHeight: 180, target: slot, mode: .fit).destination
        }
        #expect(TestPatternSource.readColor(from: frames[20], in: main(0)).distance(to: TestPalette.color(at: 0)) < 4)
        #expect(TestPatternSource.readColor(from: frames[89], in: main(1)).distance(to: TestPalette.color(at: 1)) < 4)
    }

    @Test func audioMixHoldsBothTonesAndDrivesTheSpeaker() throws {
        let dir = try TemporaryDirectory("mix-audio")
        let videos = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 90) }
        let tones = try twoTurns(dir)
        let mixPath = dir.file("mix.wav")
        let videoPath = dir.file("out.y4m")
        let report = try MixJob.run(inputs: videos, output: videoPath,
                                    options: MixOptions(width: 640, height: 180, audioInputs: tones, audioOutput: mixPath))
        let audio = try #require(report.audio)
        #expect(abs(audio.seconds - 3) < 0.011)
        // Each talks 1.5 s; speaking starts a little late and holds a little past the end.
        #expect(audio.speakingSeconds.allSatisfy { $0 > 1.2 && $0 < 2.5 }, "\(audio.speakingSeconds)")
        #expect(audio.speakerChanges >= 2)

        // The speaker's slot gets the highlight border (drawn inside the slot, so its corner pixel shows it).
        let highlight = YUVColor(red: 255, green: 200, blue: 0)
        let slots = [PixelRect(x: 0, y: 0, width: 320, height: 180), PixelRect(x: 320, y: 0, width: 320, height: 180)]
        func isHighlighted(_ frame: VideoFrame, _ slot: PixelRect) -> Bool {
            frame.y[slot.x + 1, slot.y + 1] == highlight.y && frame.u[slot.x / 2, slot.y / 2] == highlight.u
                && frame.v[slot.x / 2, slot.y / 2] == highlight.v
        }
        let frames = try TemporaryDirectory.frames(of: videoPath)
        #expect(frames.count == 90)
        // Participant 0 while it talks, participant 1 by the end (the switch waits for 0's hold to run out).
        #expect(isHighlighted(frames[20], slots[0]) && !isHighlighted(frames[20], slots[1]))
        #expect(isHighlighted(frames[89], slots[1]) && !isHighlighted(frames[89], slots[0]))
        let highlighted = slots.map { slot in frames.filter { isHighlighted($0, slot) }.count }
        #expect(highlighted.allSatisfy { $0 > 15 }, "frames with each slot highlighted: \(highlighted)")

        let reader = try AudioFileReader(path: mixPath)
        var samples: [Int16] = []
        var block = AudioFrame(silenceOf: 960, channels: 1)
        while try reader.read(into: &block, frameCount: 960) { samples += block.samples }
        #expect(samples.count == 3 * 48_000)
        let first = AudioAnalysis.goertzelPower(samples, frequency: ToneSource.frequency(forIndex: 0))
        let second = AudioAnalysis.goertzelPower(samples, frequency: ToneSource.frequency(forIndex: 1))
        let elsewhere = AudioAnalysis.goertzelPower(samples, frequency: 1_000)
        #expect(first > 100 * elsewhere && second > 100 * elsewhere, "\(first) \(second) \(elsewhere)")
    }

    @Test func durationCapsVideoAndAudio() throws {
        let dir = try TemporaryDirectory("mix-duration")
        let videos = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 30) }
        let mixPath = dir.file("mix.wav")
        let report = try MixJob.run(inputs: videos, output: nil,
                                    options: MixOptions(width: 640, height: 180, maxDuration: 0.5,
                                                        audioInputs: try twoTurns(dir), audioOutput: mixPath))
        #expect(report.framesComposed == 15)
        #expect(report.audio.map { abs($0.seconds - 0.5) < 0.011 } == true)
        #expect(try AudioFileReader(path: mixPath).frameCount == 24_000)
    }

    @Test func jobRejectsMismatchedAudioAndBadSizes() throws {
        let dir = try TemporaryDirectory("mix-reject")
        let video = try dir.clip("in.y4m", index: 0, frames: 2)
        #expect(throws: JobError.self) {
            try MixJob.run(inputs: [video, video], output: nil, options: MixOptions(audioInputs: [dir.file("a.wav")]))
        }
        #expect(throws: JobError.self) { try MixJob.run(inputs: [video], output: nil, options: MixOptions(audioOutput: "m.wav")) }
        #expect(throws: JobError.self) { try MixJob.run(inputs: [video], output: nil, options: MixOptions(width: 641)) }
        #expect(throws: JobError.self) { try MixJob.run(inputs: [], output: nil) }
        #expect(throws: JobError.self) { try MixJob.run(inputs: [video], output: dir.file("out.ivf"), options: MixOptions(codec: .h264)) }
    }

    @Test func discardComposesWithoutWriting() throws {
        let dir = try TemporaryDirectory("mix-discard")
        let inputs = try fourClips(dir, frames: 4)
        let report = try MixJob.run(inputs: inputs, output: nil, options: MixOptions(width: 640, height: 360))
        #expect(report.output == nil && report.framesComposed == 4 && report.outputBytes == 0)
        #expect(!report.pipeline.pipelined)
        let encoded = try MixJob.run(inputs: inputs, output: nil, options: MixOptions(width: 640, height: 360, codec: .vp8))
        #expect(encoded.outputCodec == "vp8" && encoded.framesWritten == 4 && encoded.keyframes == 1)
    }
}

@Suite struct MixCommandTests {
    @Test func acceptsAGoodCommandLine() throws {
        let command = try MixCommand.parse(["a.y4m", "b.y4m", "-o", "out.ivf", "--codec", "vp8", "--size", "640x360",
                                            "--layout", "speaker", "--bitrate", "1500"])
        #expect(command.inputs == ["a.y4m", "b.y4m"])
        #expect(command.size == VideoSize(width: 640, height: 360))
        let options = try command.options()
        #expect(options.layout == .speaker && options.codec == .vp8 && options.bitrateKbps == 1500)
        #expect(try MixCommand.parse(["a.y4m", "--discard", "--codec", "raw"]).discard)
        // Segments and libvpx's keyframe interval by default; --no-segments makes one stream.
        #expect(options.segmented && options.keyframeInterval == 128)
        let one = try MixCommand.parse(["a.y4m", "-o", "out.ivf", "--no-segments", "--keyframe-interval", "0"]).options()
        #expect(!one.segmented && one.keyframeInterval == 0)
    }

    @Test(arguments: [
        ["a.y4m", "-o", "out.ivf", "--size", "13x7"],
        ["a.y4m", "-o", "out.ivf", "--size", "big"],
        ["a.y4m", "-o", "out.ivf", "--layout", "diagonal"],
        ["a.y4m", "-o", "out.ivf", "--codec", "h264"],
        ["a.y4m", "-o", "out.h264", "--codec", "vp9"],
        ["a.y4m", "-o", "out.y4m", "--codec", "vp8"],
        ["a.y4m", "-o", "out.mp4"],
        ["a.y4m"],
        ["-o", "out.ivf"],
        ["a.y4m", "b.y4m", "-o", "out.ivf", "--audio", "a.wav"],
        ["a.y4m", "-o", "out.ivf", "--audio-out", "mix.wav"],
        ["a.y4m", "-o", "out.ivf", "--codec", "av1"],
    ])
    func rejectsABadCommandLine(arguments: [String]) {
        #expect(throws: (any Error).self) { try MixCommand.parse(arguments) }
    }
}

@Suite struct MixEncoderThreadsTests {
    @Test func readsTheRunningCountFromLoadavg() {
        func parse(_ text: String) -> Int? {
            Array(text.utf8).withUnsafeBufferPointer { MixEncoderThreads.runningTasks(loadavg: $0) }
        }
        #expect(parse("0.52 0.58 0.59 3/467 12345\n") == 3)
        #expect(parse("12.01 10.00 9.50 17/1024 99\n") == 17)
        #expect(parse("0.52 0.58") == nil)
        #expect(parse("0.52 0.58 0.59 x/467 1") == nil)
        #expect(parse("") == nil)
    }

    @Test func twoThreadsWhileACoreIsFreeOrInRealTime() {
        func initial(running: Int?, realTime: Bool = false, cores: Int = 2) -> Int {
            MixEncoderThreads.initial(probe: { _ in running }, realTime: realTime, cores: cores)
        }
        #expect(initial(running: 1) == 2)
        #expect(initial(running: 2) == 2)  // one other task: a core is still free
        #expect(initial(running: 3) == 1)
        #expect(initial(running: 6) == 1)
        #expect(initial(running: 3, cores: 4) == 2)
        #expect(initial(running: nil) == 1)
        #expect(initial(running: 6, realTime: true) == 2)
        #expect(initial(running: 1, cores: 1) == 1)
    }

    @Test func dropsToOneThreadAfterTwoBusyChecks() {
        func drops(running: Int, realTime: Bool = false) -> [Int] {
            var watch = MixEncoderThreads(probe: { _ in running }, realTime: realTime, cores: 2)
            return (1...300).filter { _ in watch.shouldDropToOneThread() }
        }
        #expect(drops(running: 9) == [60])
        #expect(drops(running: 5) == [60])  // two others besides our three: the cores are full
        #expect(drops(running: 4).isEmpty)
        #expect(drops(running: 2).isEmpty)
        #expect(drops(running: 9, realTime: true).isEmpty)
    }

    /// Other work appearing mid-mix: the encoder is replaced by a one-thread encoder that
    /// starts with a keyframe, and the file decodes through the switch. A one-core machine
    /// never starts with two threads, so there is no switch to see.
    @Test(.enabled(if: MixEncoderThreads.processorCount() >= 2, "a mix starts with two encoder threads only on two or more cores"))
    func theStreamStaysDecodableAcrossTheSwitch() throws {
        let dir = try TemporaryDirectory("mix-threads")
        let inputs = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 64, width: 160, height: 90) }
        let output = dir.file("out.ivf")
        var options = MixOptions(width: 320, height: 90, codec: .vp8, bitrateKbps: 400)
        options.runningTasksProbe = { samples in samples > 1 ? 1 : 9 }
        options.realTimeProbe = { false }
        let report = try MixJob.run(inputs: inputs, output: output, options: options)
        #expect(report.pipeline.encoderThreads == 2)
        #expect(report.pipeline.droppedToOneThreadAtFrame == 60)
        #expect(report.keyframes == 2)
        // Every frame written decodes, in order (rate control may skip a frame after the new keyframe).
        let frames = try TemporaryDirectory.frames(of: output)
        #expect(frames.count == report.framesWritten && report.framesWritten + report.framesDropped == 64)
        let counters = frames.map { TestPatternSource.readFrameCounter(from: $0, in: PixelRect(width: 160, height: 90)) }
        #expect(Array(counters.prefix(61)) == (0...60).map { Optional($0) })
        #expect(counters.compactMap { $0 } == counters.compactMap { $0 }.sorted() && counters.last == 63)
    }

    @Test func explicitThreadsAreKept() throws {
        let dir = try TemporaryDirectory("mix-threads2")
        let inputs = try (0..<2).map { try dir.clip("in\($0).y4m", index: $0, frames: 40, width: 160, height: 90) }
        var options = MixOptions(width: 320, height: 90, codec: .vp8, threads: 2)
        options.runningTasksProbe = { _ in 9 }
        let report = try MixJob.run(inputs: inputs, output: nil, options: options)
        #expect(report.pipeline.encoderThreads == 2 && report.pipeline.droppedToOneThreadAtFrame == nil)
    }
}

@Suite struct MixHandoffTests {
    struct Failure: Error {}

    /// A result box the producer thread fills before signalling; read only after the wait.
    final class Outcome: @unchecked Sendable {
        // Sendable: written by one thread before `done.signal()`, read after `done.wait()`.
        var accepted: [Bool] = []
        let done = DispatchSemaphore(value: 0)
    }

    @Test func deliversEveryItemInOrderThroughASmallRing() throws {
        let handoff = MixHandoff<Int>(capacity: 2)
        let outcome = Outcome()
        DispatchQueue.global().async {
            for i in 0..<500 { outcome.accepted.append(handoff.put(i)) }
            handoff.finish()
            outcome.done.signal()
        }
        var received: [Int] = []
        while let item = try handoff.take() { received.append(item) }
        outcome.done.wait()
        #expect(received == Array(0..<500))
        #expect(outcome.accepted.allSatisfy { $0 })
        #expect(try handoff.take() == nil)
    }

    @Test func theProducersErrorArrivesAfterItsItems() throws {
        let handoff = MixHandoff<Int>(capacity: 4)
        #expect(handoff.put(1) && handoff.put(2))
        handoff.finish(throwing: Failure())
        #expect(try handoff.take() == 1)
        #expect(try handoff.take() == 2)
        #expect(throws: Failure.self) { try handoff.take() }
    }

    @Test func cancelStopsABlockedProducer() {
        let handoff = MixHandoff<Int>(capacity: 1)
        let outcome = Outcome()
        DispatchQueue.global().async {
            // The second put waits for a slot the consumer never frees; cancel ends the wait.
            for i in 0..<3 { outcome.accepted.append(handoff.put(i)) }
            outcome.done.signal()
        }
        handoff.cancel()
        outcome.done.wait()
        #expect(outcome.accepted.count == 3)
        #expect(outcome.accepted.dropFirst().allSatisfy { !$0 })
    }
}
