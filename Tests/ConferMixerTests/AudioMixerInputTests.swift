import ConferMedia
import Testing
@testable import ConferMixer

@Suite struct AudioMixerInputTests {
    static let window = 4_800
    static func f(_ k: Int) -> Double { ToneSource.frequency(forIndex: k) }

    @Test func aParticipantThatStopsPushingStallsNobodyAndFallsSilent() throws {
        var room = MixerRoom()
        for k in 0..<3 { try room.add(k, tone: ToneSource(index: k, amplitude: 0.2, pattern: .continuous)) }
        try room.record(steps: 10, listeners: [])
        room.feeds[2] = nil  // participant 2's network goes quiet
        let heard = try room.record(steps: 80, listeners: [0, 1, 2])
        // Every step still produced 10 ms for everyone.
        #expect(heard.values.allSatisfy { $0.count == 80 * 480 })
        #expect(room.step == 90)
        let zero = Array(heard[0]!.suffix(Self.window))
        #expect(abs(power(zero, Self.f(1)) / 0.02 - 1) < 0.02)
        // Rounding of the other tones leaves ~10⁻¹³ at any frequency; a tone would be 0.02.
        #expect(power(zero, Self.f(2)) < 1e-9)
        #expect(power(Array(heard[1]!.suffix(Self.window)), Self.f(2)) < 1e-9)
        // It still hears the others; once its speaking hold has run out, from the shared
        // mix. Its starvation is counted.
        let two = Array(heard[2]!.suffix(Self.window))
        #expect(power(two, Self.f(0)) > 0.019 && power(two, Self.f(1)) > 0.019)
        let shared = !room.mixer.needsOwnMix(2)
        #expect(shared)
        #expect(try room.mixer.statistics(for: 2).starvedSteps == 80)
        #expect(try room.mixer.statistics(for: 0).starvedSteps == 0)
    }

    @Test func removingAParticipantMidStreamTakesItOutOfEveryMix() throws {
        var room = MixerRoom()
        for k in 0..<4 { try room.add(k, tone: ToneSource(index: k, amplitude: 0.2, pattern: .continuous)) }
        try room.record(steps: 10, listeners: [])
        #expect(room.mixer.ownMixListeners == [0, 1, 2, 3])
        try room.mixer.remove(1)
        room.feeds[1] = nil
        #expect(room.mixer.ownMixListeners == [0, 2, 3])
        let heard = try room.record(steps: 10, listeners: [0, 1, 2, 3])
        for listener in [0, 2, 3] {
            let tail = Array(heard[listener]!.suffix(Self.window))
            #expect(power(tail, Self.f(1)) < 1e-9)
            for k in [0, 2, 3] where k != listener { #expect(power(tail, Self.f(k)) > 0.019) }
        }
        // A former participant is just a listener now: it gets the shared mix.
        #expect(heard[1]!.suffix(480) == room.mixer.sharedMix.samples[...])
        #expect(room.mixer.participants == [0, 2, 3])
        #expect(throws: AudioMixerError.unknownParticipant("1")) { try room.mixer.push(AudioFrame(silenceOf: 480, channels: 1), from: 1) }
        #expect(throws: AudioMixerError.unknownParticipant("1")) { try room.mixer.remove(1) }
        // And it can come back.
        try room.mixer.add(1)
        #expect(room.mixer.participants == [0, 2, 3, 1])
    }

    @Test func pushingFarTooMuchIsBoundedDroppedAndCounted() throws {
        var mixer = AudioMixer<Int>()
        try mixer.add(7)
        let ring = mixer.slots[0].ring.storageFingerprint
        // Five seconds at once: only the newest 200 ms are kept.
        var tone = ToneSource(index: 0, amplitude: 0.3, pattern: .continuous)
        let flood = tone.next(frameCount: 240_000)
        try mixer.push(flood, from: 7)
        #expect(try mixer.queuedFrames(of: 7) == 9_600)
        var stats = try mixer.statistics(for: 7)
        #expect(stats.pushedFrames == 240_000 && stats.droppedFrames == 230_400)
        // What is mixed next is the newest audio, from 200 ms before the end.
        _ = mixer.mix(at: .zero)
        #expect(try mixer.queuedFrames(of: 7) == 9_120)
        try mixer.add(8)
        // A steady excess (20 ms per 10 ms step) keeps dropping, never growing.
        let twenty = AudioFrame(silenceOf: 960, channels: 1)
        for step in 1...50 {
            try mixer.push(twenty, from: 7)
            _ = mixer.mix(at: .milliseconds(Int64(step) * 10))
            #expect(try mixer.queuedFrames(of: 7) <= 9_600)
        }
        stats = try mixer.statistics(for: 7)
        #expect(stats.droppedFrames > 230_400 + 15_000)
        // The flooded participant's ring never grew or moved.
        #expect(mixer.slots[0].ring.storageFingerprint == ring)
    }

    @Test func queuedAudioIsMixedInOrderAcrossPushSizes() throws {
        var mixer = AudioMixer<Int>()
        try mixer.add(0)
        try mixer.add(1)
        // 30 ms in one push, then 5 ms pieces: the mix plays it back in order, 10 ms per step.
        let ramp = (0..<1_440).map { Int16($0) }
        try mixer.push(AudioFrame(samples: ramp, channels: 1), from: 0)
        var heard: [Int16] = []
        for step in 0..<3 {
            _ = mixer.mix(at: .milliseconds(Int64(step) * 10))
            heard += mixer.mix(for: 1).samples
        }
        #expect(heard == ramp)
        #expect(try mixer.statistics(for: 0).starvedSteps == 0)
        // 5 ms queued: it plays, followed by 5 ms of silence, and the step is counted starved.
        try mixer.push(AudioFrame(samples: [Int16](repeating: 5_000, count: 240), channels: 1), from: 0)
        _ = mixer.mix(at: .milliseconds(30))
        #expect(mixer.mix(for: 1).samples == [Int16](repeating: 5_000, count: 240) + [Int16](repeating: 0, count: 240))
        #expect(try mixer.statistics(for: 0).starvedSteps == 1)
    }
}
