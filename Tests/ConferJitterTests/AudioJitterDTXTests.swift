import ConferCodecs
import ConferJitter
import ConferMedia
import Foundation
import Testing

@Suite("Audio jitter buffer: DTX and comfort noise")
struct AudioJitterDTXTests {
    @Test("DTX silence plays as low comfort noise, neither zeros nor concealment buzz, and speech resumes cleanly")
    func dtxSilence() throws {
        let second = TestAudio.frames(ms: 1000)
        let input = Array(TestAudio.talking.prefix(second)) + [Int16](repeating: 0, count: 2 * second)
            + Array(TestAudio.talking[second..<(2 * second)])
        let packets = try TestSender.encode(input, dtx: true)
        let run = try TestReceiver.run(TestNetwork().deliver(packets), duration: .seconds(4))
        let s = run.statistics
        let start = run.output.count - Int(s.totalSamplesReceived)
        // The silence reaches the output about `start` samples late; skip its first 300 ms
        // (libopus enters DTX after 200 ms) and its last 100 ms.
        let silence = (start + second + TestAudio.frames(ms: 300))..<(start + 3 * second - TestAudio.frames(ms: 100))
        let silenceRMS = TestAudio.rms(run.output, silence)
        let silenceDB = 20 * log10(max(silenceRMS, 1e-12))
        let zeros = TestAudio.longestZeroRun(run.output, silence)
        // After the silence: align again (the delay may reset in the silence) and compare.
        let resumed = (start + 3 * second + TestAudio.frames(ms: 200))..<run.output.count
        let lag = TestAudio.bestLag(input, run.output, lags: 0...9600, probe: resumed.lowerBound..<(resumed.lowerBound + 4800))
        let correlation = TestAudio.correlation(input, run.output, lag: lag, range: resumed)
        print("DTX: \(packets.count) of 200 packets sent; silence at \(silenceDB) dBov, longest zero run \(zeros);",
              "comfort noise \(s.comfortNoiseSamples), concealed \(s.concealedSamples); resumed correlation \(correlation)")
        #expect(packets.count < 150)
        #expect(silenceDB < -60 && silenceRMS > 0, "silence at \(silenceDB) dBov")
        #expect(zeros < TestAudio.frames(ms: 1))
        #expect(s.comfortNoiseSamples >= Int64(TestAudio.frames(ms: 1000)))
        #expect(s.concealedSamples == 0)
        #expect(correlation >= 0.9)
        #expect(TestAudio.longestZeroRun(run.output, resumed) <= 2)
    }
}
