import ConferMedia
import Testing
@testable import ConferMixer

/// Allocation-free steady state, checked by buffer identity: every buffer the mixer owns
/// (rings, contributions, outputs, lists, detector state) keeps its address and capacity
/// across many steps. A step that allocated in its place — growing a list, or copying a
/// buffer on write because someone still held it — would move one. (Counting malloc calls
/// directly needs an interposer, which a test process shared with other suites cannot use.)
@Suite struct AudioMixerAllocationTests {
    @Test func stepsReuseEveryBufferOnceWarm() throws {
        var mixer = AudioMixer<Int>(configuration: AudioMixerConfiguration(outputChannels: .stereo))
        var tones: [ToneSource] = []
        var frames: [AudioFrame] = []
        for k in 0..<9 {
            try mixer.add(k)
            tones.append(ToneSource(index: k, amplitude: 0.2, channels: k % 2 + 1, pattern: .speech, seed: UInt64(k)))
            frames.append(AudioFrame(silenceOf: 480, channels: k % 2 + 1))
        }
        var time = Timestamp.zero
        func step(_ mixer: inout AudioMixer<Int>) throws -> Int {
            for k in 0..<9 {
                tones[k].fill(into: &frames[k])
                try mixer.push(frames[k], from: k)
            }
            let result = mixer.mix(at: time)
            time += .milliseconds(10)
            var sum = 0
            for k in 0..<9 { sum &+= mixer.withMix(for: k) { Int($0[100]) } }
            return sum &+ result.ownMixListeners.count
        }
        for _ in 0..<50 { _ = try step(&mixer) }
        let before = mixer.storageFingerprint
        var speakingSteps = 0, sum = 0
        for _ in 0..<300 {
            sum &+= try step(&mixer)
            speakingSteps += mixer.ownMixListeners.isEmpty ? 0 : 1
        }
        #expect(mixer.storageFingerprint == before)
        // The run exercised the interesting paths: talkers came and went.
        #expect(speakingSteps > 100 && mixer.statistics.ownMixesRendered > 300)
        #expect(sum != 0)
    }

    @Test func theFingerprintSeesACopyOnWrite() throws {
        var mixer = AudioMixer<Int>()
        try mixer.add(0)
        _ = mixer.mix(at: .zero)
        let before = mixer.storageFingerprint
        // Holding a result across the next step forces that step to copy the lists it shares.
        let kept = mixer.mix(at: .milliseconds(10))
        _ = mixer.mix(at: .milliseconds(20))
        #expect(mixer.storageFingerprint != before)
        #expect(kept.timestamp == .milliseconds(10))
    }
}
