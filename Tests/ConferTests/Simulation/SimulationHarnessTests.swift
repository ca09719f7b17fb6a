import Foundation
import Testing
import Confer
import ConferMedia
import ConferNet
import ConferSimulation
import ConferJobs

/// Input for simulations: the moving test pattern at `width` × `height` and `frameRate`
/// for `seconds` (seeded noise with `noiseGrain` fresh grain, harder to encode, when set), with a speech-like tone
/// (or a steady one) when `audio` is set. Output is dropped unless
/// `writeVideo` / `writeAudio` take it.
func patternMedia(seconds: Double, width: Int = 320, height: Int = 240, frameRate: Double = 30, audio: Bool = false,
                  noiseGrain: Int? = nil, continuousTone: Bool = false,
                  writeVideo: @escaping (VideoFrame) throws -> Void = { _ in },
                  writeAudio: @escaping (AudioFrame) throws -> Void = { _ in }) -> SimulationMedia {
    let frameCount = Int((seconds * frameRate).rounded())
    var pattern = TestPatternSource(width: width, height: height, frameRate: frameRate, colorIndex: 2, seed: 7, poolCapacity: 16)
    var grain = noiseGrain.map { NoisePatternSource(width: width, height: height, frameRate: frameRate, seed: 7, grain: $0, poolCapacity: 16) }
    var tone = ToneSource(index: 1, amplitude: 0.3, pattern: continuousTone ? .continuous : .speech, seed: 3)
    var produced = 0
    var audioProduced = 0
    let audioFrames = Int(seconds * Double(conferSampleRate))
    return SimulationMedia(
        width: width, height: height, frameRate: frameRate, expectedFrameCount: frameCount,
        nextVideoFrame: {
            guard produced < frameCount else { return nil }
            produced += 1
            return grain?.next() ?? pattern.next()
        },
        audioChannels: audio ? 1 : 0,
        readAudio: { frame, count in
            guard audioProduced < audioFrames else { return false }
            let n = min(count, audioFrames - audioProduced)
            if frame.frameCount != n || frame.channels != 1 { frame = AudioFrame(silenceOf: n, channels: 1) }
            tone.fill(into: &frame)
            audioProduced += n
            return true
        },
        writeVideo: writeVideo, writeAudio: writeAudio)
}

/// Conditions with `delayMs` one-way delay, `jitterMs` of normal jitter and `lossPercent` random loss.
func conditions(delayMs: Int64 = 0, jitterMs: Int64 = 0, lossPercent: Double = 0, bandwidth: Int? = nil) -> NetworkConditions {
    NetworkConditions(delay: .milliseconds(delayMs), jitter: .normal(.milliseconds(jitterMs)), loss: lossPercent / 100,
                      bandwidth: bandwidth)
}

@Suite struct SimulationHarnessTests {
    @Test func framesTheEncoderSkipsAreRepeatedInTheOutput() throws {
        // Rate control may skip frames: each one sent renders, each skipped one repeats the last.
        let report = try Simulation.run(patternMedia(seconds: 3), options: SimulationOptions(codec: .vp8, forward: conditions(delayMs: 20)))
        let video = try #require(report.video)
        let sent = try #require(report.sender.video?.framesSent)
        #expect(report.inputFrames == 90)
        #expect(report.outputFrames == 90)
        #expect(video.framesRendered == sent)
        #expect(report.quality.framesShown == sent)
        #expect(report.quality.framesRepeated == 90 - sent)
        #expect(report.sender.video?.framesDroppedByEncoder == 90 - sent)
    }

    @Test func filesInFilesOutWithTheInputsFrameCountAndTiming() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Generator.run(output: dir + "/in.y4m", width: 160, height: 120, frameRate: 25, seconds: 2)
        _ = try Generator.run(output: dir + "/in.wav", seconds: 2)
        let report = try Simulation.run(
            input: dir + "/in.y4m", audioInput: dir + "/in.wav", output: dir + "/out.y4m", audioOutput: dir + "/out.wav",
            options: SimulationOptions(forward: conditions(delayMs: 30, lossPercent: 2)))
        #expect(report.inputFrames == 50)
        #expect(report.frameRate == 25)
        let received = try Y4MReader(path: dir + "/out.y4m")
        #expect(received.header.frameRateNumerator == 25 && received.header.frameRateDenominator == 1)
        var frames = 0
        while try received.next() != nil { frames += 1 }
        #expect(frames == 50)
        // Audio is pulled from the first capture until everything sent has played out.
        let audio = try WAVReader(path: dir + "/out.wav")
        let seconds = Double(audio.outputFrameCount ?? 0) / 48_000
        #expect(seconds >= 2 && seconds < 2.5)
        #expect(abs(seconds - report.outputAudioSeconds) < 0.001)
        #expect(report.quality.framesCompared == 50)
        #expect(report.quality.meanPSNR.y > 30)

        #expect(throws: JobError.self) {
            try Simulation.run(input: dir + "/in.y4m", output: dir + "/out.ivf", options: SimulationOptions())
        }
        #expect(throws: JobError.self) {
            try Simulation.run(input: dir + "/in.y4m", output: dir + "/o.y4m", audioOutput: dir + "/o.wav", options: SimulationOptions())
        }
    }

    @Test func frameRatesBecomeY4MRationals() {
        #expect(Simulation.rationalFrameRate(30) == (30, 1))
        #expect(Simulation.rationalFrameRate(30_000.0 / 1001) == (30_000, 1001))
        #expect(Simulation.rationalFrameRate(12.5) == (25, 2))
    }
}
