import Testing
import Confer
import ConferMedia
import ConferNet

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
    @Test func cleanNetworkRendersEveryFrameWithLittleBufferDelay() throws {
        let report = try Simulation.run(patternMedia(seconds: 3), options: SimulationOptions(codec: .vp8, forward: conditions(delayMs: 20)))
        let video = try #require(report.video)
        print(report.inputFrames, video.framesRendered, video.jitterBufferDelay, report.endToEndDelay, report.quality.meanPSNR, report.speed)
        #expect(report.inputFrames == 90)
        #expect(report.outputFrames == 90)
        #expect(video.framesRendered == report.sender.video?.framesSent)
    }
}
