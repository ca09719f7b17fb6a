import Foundation
import Testing
import Confer
import ConferMedia
import ConferSimulation

/// A `size` × `size` frame of one luma value with neutral chroma.
private func flatFrame(luma: UInt8, size: Int = 32) -> VideoFrame {
    let frame = MutableVideoFrame(layout: FrameLayout(width: size, height: size))
    frame.fill(y: luma, u: 128, v: 128)
    return frame.finish()
}

@Suite struct SimulationReportTests {
    @Test func percentilesUseTheNearestRank() {
        // 1…20 ms: rank ⌈0.5·20⌉ = 10, ⌈0.95·20⌉ = 19, ⌈0.99·20⌉ = 20.
        var random = SeededRandom(seed: 42)
        let twenty = SimulationPercentiles((1...20).map { TimeDelta.milliseconds(Int64($0)) }.shuffled(using: &random))
        #expect(twenty.count == 20)
        #expect(twenty.p50 == 10)
        #expect(twenty.p95 == 19)
        #expect(twenty.p99 == 20)
        #expect(twenty.mean == 10.5)
        #expect(twenty.min == 1)
        #expect(twenty.max == 20)

        // Three values: ranks ⌈1.5⌉ = 2, ⌈2.85⌉ = 3, ⌈2.97⌉ = 3.
        let three = SimulationPercentiles([.milliseconds(30), .milliseconds(10), TimeDelta(microseconds: 20_500)])
        #expect(three.p50 == 20.5)
        #expect(three.p95 == 30)
        #expect(three.p99 == 30)
        #expect(abs(three.mean - 60.5 / 3) < 1e-9)

        let none = SimulationPercentiles([])
        #expect(none.count == 0 && none.p50 == 0 && none.max == 0)
    }

    @Test func recorderRepeatsTheLastRenderedFrameAndScoresEveryOutputFrame() throws {
        var written: [UInt8] = []
        let recorder = SimulationRecorder(width: 32, height: 32) { written.append($0.y[0, 0]) }
        // Input frames 0…4 with luma 100…104, captured every 40 ms.
        for index in 0 ..< 5 { recorder.captured(flatFrame(luma: UInt8(100 + index)), index: index) }
        // Only frames 1 and 3 render (luma 110 and 97): frame 0 is black, 2 repeats 1, 4 repeats 3.
        try recorder.rendered(flatFrame(luma: 110), captureIndex: 1, captureTime: .milliseconds(40), renderTime: .milliseconds(95))
        try recorder.rendered(flatFrame(luma: 97), captureIndex: 3, captureTime: .milliseconds(120), renderTime: .milliseconds(250))
        try recorder.finish()

        #expect(written == [16, 110, 110, 97, 97])
        #expect(recorder.framesWritten == 5)
        #expect(recorder.framesShown == 2)
        #expect(recorder.framesRepeated == 2)
        #expect(recorder.framesBlank == 1)
        #expect(recorder.endToEndDelays == [.milliseconds(55), .milliseconds(130)])

        // By hand: luma errors 84 (black 16 vs 100), 9, 8, 6, 7 on 1024 samples; chroma is exact,
        // so the frame's MSE is d²·1024 / (1024 + 2·256) = d²·2/3.
        let errors: [Double] = [84, 9, 8, 6, 7]
        let lumaPSNR = errors.map { 10 * log10(255 * 255 / ($0 * $0)) }
        let framePSNR = errors.map { 10 * log10(255 * 255 / ($0 * $0 * 2 / 3)) }
        let quality = recorder.quality
        #expect(quality.frameCount == 5)
        #expect(abs(quality.meanPSNR.y - lumaPSNR.reduce(0, +) / 5) < 1e-6)
        #expect(abs(quality.meanPSNR.frame - framePSNR.reduce(0, +) / 5) < 1e-6)
        #expect(abs(quality.minPSNR.y - lumaPSNR[0]) < 1e-6)
        #expect(quality.meanPSNR.u == QualityMetrics.maxPSNR)
    }

    @Test func recorderIgnoresFramesRenderedOutOfOrderForTheOutput() throws {
        var written: [UInt8] = []
        let recorder = SimulationRecorder(width: 32, height: 32) { written.append($0.y[0, 0]) }
        for index in 0 ..< 3 { recorder.captured(flatFrame(luma: UInt8(50 + index)), index: index) }
        try recorder.rendered(flatFrame(luma: 52), captureIndex: 2, captureTime: .milliseconds(80), renderTime: .milliseconds(100))
        try recorder.rendered(flatFrame(luma: 50), captureIndex: 0, captureTime: .zero, renderTime: .milliseconds(110))
        try recorder.finish()
        #expect(written == [16, 16, 52])
        #expect(recorder.framesOutOfOrder == 1)
        #expect(recorder.endToEndDelays.count == 2)
    }

    @Test func reportRoundTripsThroughJSON() throws {
        let report = try Simulation.run(patternMedia(seconds: 1, width: 64, height: 48),
                                        options: SimulationOptions(forward: conditions(delayMs: 10)))
        let data = try JSONEncoder().encode(report)
        let decoded = try JSONDecoder().decode(SimulationReport.self, from: data)
        #expect(decoded.inputFrames == 30)
        #expect(decoded.video?.framesRendered == report.video?.framesRendered)
        #expect(decoded.endToEndDelay == report.endToEndDelay)
        let text = String(decoding: data, as: UTF8.self)
        for name in ["packetsReceived", "packetsLost", "jitter", "framesDecoded", "framesDropped", "framesRendered",
                     "keyFramesDecoded", "freezeCount", "totalFreezesDuration", "jitterBufferDelay",
                     "jitterBufferTargetDelay", "jitterBufferEmittedCount", "nackCount", "pliCount", "firCount"] {
            #expect(text.contains("\"\(name)\""), "missing \(name)")
        }
    }
}
