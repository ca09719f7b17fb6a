import ConferMedia
import Testing
@testable import ConferMixer

@Suite struct AudioMixerGainTests {
    static let window = 4_800
    static func f(_ k: Int) -> Double { ToneSource.frequency(forIndex: k) }

    func threeTones() throws -> MixerRoom {
        var room = MixerRoom()
        for k in 0..<3 { try room.add(k, tone: ToneSource(index: k, amplitude: 0.2, pattern: .continuous)) }
        return room
    }

    @Test func muteRemovesAParticipantFromEveryMixAndUnmuteBringsItBack() throws {
        var room = try threeTones()
        let before = try room.record(steps: 10, listeners: [0, 2, 99])
        let heard = before[0]!.suffix(Self.window)
        #expect(power(Array(heard), Self.f(1)) > 0.019)

        try room.mixer.setMuted(true, for: 1)
        #expect(try room.mixer.isMuted(1))
        try room.advance()  // the ramp down
        let muted = try room.record(steps: 10, listeners: [0, 1, 2, 99])
        for listener in [0, 2, 99] {
            #expect(power(Array(muted[listener]!.suffix(Self.window)), Self.f(1)) < 1e-9, "listener \(listener)")
        }
        // Muted, it contributes nothing: its level reads silence, and once its speaking hold
        // (700 ms) runs out it moves to the shared mix of the other two.
        #expect(try room.mixer.level(of: 1).level == 127)
        let held = room.mixer.needsOwnMix(1)
        #expect(held)
        let later = try room.record(steps: 60, listeners: [1])
        let moved = !room.mixer.needsOwnMix(1)
        #expect(moved)
        let mutedHears = Array(later[1]!.suffix(Self.window))
        let hearsShared = room.mixer.mix(for: 1) == room.mixer.sharedMix
        #expect(hearsShared)
        #expect(power(mutedHears, Self.f(0)) > 0.019 && power(mutedHears, Self.f(2)) > 0.019)

        try room.mixer.setMuted(false, for: 1)
        try room.advance()
        let back = try room.record(steps: 10, listeners: [0])
        #expect(abs(power(Array(back[0]!.suffix(Self.window)), Self.f(1)) / 0.02 - 1) < 0.02)
    }

    @Test func minusSixDecibelsHalvesTheAmplitude() throws {
        var room = try threeTones()
        try room.mixer.setGain(decibels: -6, for: 2)
        #expect(abs(try room.mixer.gain(of: 2) - 0.501) < 0.001)
        let heard = try room.record(steps: 12, listeners: [0, 1])
        for listener in [0, 1] {
            let tail = Array(heard[listener]!.suffix(Self.window))
            let amplitude = (2 * power(tail, Self.f(2))).squareRoot()
            #expect(abs(amplitude / 0.2 - 0.5) < 0.01, "amplitude \(amplitude)")
            // The others are untouched.
            let other = listener == 0 ? 1 : 0
            #expect(abs((2 * power(tail, Self.f(other))).squareRoot() / 0.2 - 1) < 0.01)
        }
        // Linear gain works the same, and the level follows it: 0.2 → 0.1 is −6 dB.
        try room.mixer.setGain(0.5, for: 2)
        try room.advance()
        try room.advance()
        let level = try room.mixer.level(of: 2).level
        #expect(level == 23)  // a sine at 0.1 of full scale: −20 − 3 = −23 dBov
    }

    @Test func gainChangesRampOverOneStepInsteadOfClicking() throws {
        var room = MixerRoom()
        try room.add(0, feed: filler { _ in 10_000 })
        try room.add(1, feed: filler { _ in 0 })
        try room.advance()
        try room.mixer.setGain(0, for: 0)
        try room.advance()
        let ramp = room.mixer.mix(for: 1).samples
        // Steps down evenly from just under 10 000 to 0, never jumping by more than a few percent.
        #expect(ramp.first! > 9_900 && ramp.last! == 0)
        #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $0 >= $1 && $0 - $1 <= 21 })
    }

    @Test func badRequestsAreTypedErrorsAndChangeNothing() throws {
        var mixer = AudioMixer<Int>(configuration: AudioMixerConfiguration(maximumParticipants: 2))
        try mixer.add(1)
        #expect(throws: AudioMixerError.participantAlreadyAdded("1")) { try mixer.add(1) }
        try mixer.add(2)
        #expect(throws: AudioMixerError.tooManyParticipants(limit: 2)) { try mixer.add(3) }
        #expect(throws: AudioMixerError.unknownParticipant("3")) { try mixer.push(AudioFrame(silenceOf: 480, channels: 1), from: 3) }
        #expect(throws: AudioMixerError.invalidGain(-1)) { try mixer.setGain(-1, for: 1) }
        #expect(throws: AudioMixerError.invalidGain(17)) { try mixer.setGain(17, for: 1) }
        #expect(throws: AudioMixerError.invalidGain(.infinity)) { try mixer.setGain(.infinity, for: 1) }
        #expect(throws: AudioMixerError.self) { try mixer.setGain(decibels: .nan, for: 1) }
        #expect(throws: AudioMixerError.self) { try mixer.setGain(decibels: 80, for: 1) }
        try mixer.setGain(decibels: -.infinity, for: 1)
        #expect(try mixer.gain(of: 1) == 0)
        let samples = [Int16](repeating: 1, count: 9)
        samples.withUnsafeBufferPointer { buffer in
            #expect(throws: AudioMixerError.invalidChannelCount(3)) { try mixer.push(samples: buffer, channels: 3, from: 1) }
            #expect(throws: AudioMixerError.partialSampleFrame(sampleCount: 9, channels: 2)) {
                try mixer.push(samples: buffer, channels: 2, from: 1)
            }
        }
        #expect(try mixer.queuedFrames(of: 1) == 0)
        #expect(mixer.participants == [1, 2])
    }
}
