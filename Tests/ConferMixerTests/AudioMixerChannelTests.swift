import ConferMedia
import Testing
@testable import ConferMixer

@Suite struct AudioMixerChannelTests {
    /// A participant 0 with `channels` input and a silent listener 1, in a mixer with
    /// `output` channels: listener 1 hears participant 0 alone, converted.
    func heard(output: AudioMixerConfiguration.OutputChannels, input: [Int16], channels: Int) throws -> [Int16] {
        var mixer = AudioMixer<Int>(configuration: AudioMixerConfiguration(outputChannels: output))
        try mixer.add(0)
        try mixer.add(1)
        try mixer.push(AudioFrame(samples: input, channels: channels), from: 0)
        _ = mixer.mix(at: .zero)
        let frame = mixer.mix(for: 1)
        #expect(frame.channels == output.count)
        #expect(frame.frameCount == 480)
        return frame.samples
    }

    /// 480 frames of `channels` channels, channel c of frame i = value(i, c).
    func frames(_ channels: Int, _ value: (Int, Int) -> Int16) -> [Int16] {
        (0..<480).flatMap { i in (0..<channels).map { c in value(i, c) } }
    }

    @Test func monoIntoMonoIsUnchanged() throws {
        let input = frames(1) { i, _ in Int16(i * 50 - 12_000) }
        #expect(try heard(output: .mono, input: input, channels: 1) == input)
    }

    @Test func monoIntoStereoIsDuplicated() throws {
        let input = frames(1) { i, _ in Int16(i * 50 - 12_000) }
        #expect(try heard(output: .stereo, input: input, channels: 1) == frames(2) { i, _ in input[i] })
    }

    @Test func stereoIntoStereoKeepsTheChannels() throws {
        let input = frames(2) { i, c in c == 0 ? Int16(i * 40) : Int16(-i * 30) }
        #expect(try heard(output: .stereo, input: input, channels: 2) == input)
    }

    @Test func stereoIntoMonoIsTheAverage() throws {
        let input = frames(2) { i, c in c == 0 ? Int16(i * 40 + 1) : Int16(-i * 30) }
        let expected = frames(1) { i, _ in Int16((Int32(i * 40 + 1) - Int32(i * 30)) / 2) }
        #expect(try heard(output: .mono, input: input, channels: 2) == expected)
        // Extremes average without overflow.
        let extremes = frames(2) { _, c in c == 0 ? .max : .max }
        #expect(try heard(output: .mono, input: extremes, channels: 2).allSatisfy { $0 == 29_205 })
    }

    @Test func monoAndStereoParticipantsMixTogether() throws {
        var mixer = AudioMixer<Int>(configuration: AudioMixerConfiguration(outputChannels: .stereo))
        try mixer.add(0)
        try mixer.add(1)
        try mixer.push(AudioFrame(samples: [Int16](repeating: 1_000, count: 480), channels: 1), from: 0)
        try mixer.push(AudioFrame(samples: frames(2) { _, c in c == 0 ? 2_000 : -2_000 }, channels: 2), from: 1)
        _ = mixer.mix(at: .zero)
        #expect(mixer.sharedMix.samples == frames(2) { _, c in c == 0 ? 3_000 : -1_000 })
        #expect(mixer.mix(for: 0).samples == frames(2) { _, c in c == 0 ? 2_000 : -2_000 })
        #expect(mixer.mix(for: 1).samples == [Int16](repeating: 1_000, count: 960))
    }
}
