import ConferMedia
import Foundation
import Testing
@testable import ConferMixer

@Suite struct SpeakingDetectorTests {
    static let onset = 0.06, hold = 0.7

    /// A tone of `amplitude` at participant `index`'s frequency while `active(seconds)`.
    static func voice(_ index: Int, amplitude: Double, while active: @escaping (Double) -> Bool) -> MixerRoom.Feed {
        let omega = 2 * Double.pi * ToneSource.frequency(forIndex: index) / 48_000
        return filler { n in
            active(Double(n) / 48_000) ? Int16((amplitude * 32_767 * sin(omega * Double(n))).rounded()) : 0
        }
    }

    /// Runs `room` for `seconds`, returning the active speaker after each step.
    static func activeSpeakers(_ room: inout MixerRoom, seconds: Double) throws -> [Int?] {
        try (0..<Int(seconds * 100)).map { _ in try room.advance().activeSpeaker }
    }

    /// The time of the first step at which `speakers` shows `who`.
    static func firstTime(_ who: Int, in speakers: [Int?]) -> Double? {
        speakers.firstIndex(of: who).map { Double($0) / 100 }
    }

    @Test func speakingFollowsTalkSpurtsWithOnsetDelayAndHold() throws {
        let pattern = ToneSource.Pattern.talkSpurts(.init(spurt: 0.3...1.2, gap: 0.2...1.4))
        let tone = ToneSource(index: 0, amplitude: 0.3, pattern: pattern, seed: 27)
        var room = MixerRoom()
        try room.add(0, tone: tone)
        let seconds = 12.0
        var changes: [SpeakingDetector<Int>.Change] = []
        for _ in 0..<Int(seconds * 100) { changes += try room.advance().speakingChanges }

        // What should happen: on within the onset (+ one step) of each spurt that follows a
        // gap longer than the hold; off a hold after each spurt followed by such a gap;
        // nothing at all in shorter gaps.
        let spurts = tone.talkSpurts(before: Int(seconds * 48_000)).map {
            (start: Double($0.lowerBound) / 48_000, end: Double($0.upperBound) / 48_000)
        }
        var expected: [(isSpeaking: Bool, window: ClosedRange<Double>)] = []
        var shortGaps = 0, longGaps = 0
        for (k, spurt) in spurts.enumerated() {
            let gapBefore = k == 0 ? Double.infinity : spurt.start - spurts[k - 1].end
            #expect(abs(gapBefore - Self.hold) > 0.04, "gap \(gapBefore) too close to the hold to call")
            if gapBefore > Self.hold {
                // The change is reported by the step that starts at t and ends at t + 10 ms:
                // t + 10 ms − start is the onset delay, at most onset + 10 ms.
                expected.append((true, (spurt.start + Self.onset - 0.02)...(spurt.start + Self.onset)))
                if k > 0 { longGaps += 1 }
            } else {
                shortGaps += 1
            }
            let gapAfter = k + 1 < spurts.count ? spurts[k + 1].start - spurt.end : Double.infinity
            if gapAfter > Self.hold, spurt.end + Self.hold + 0.02 < seconds {
                expected.append((false, (spurt.end + Self.hold - 0.03)...(spurt.end + Self.hold + 0.01)))
            }
        }
        #expect(shortGaps >= 3 && longGaps >= 3)
        #expect(changes.count == expected.count)
        for (change, expectation) in zip(changes, expected) {
            #expect(change.participant == 0)
            #expect(change.isSpeaking == expectation.isSpeaking)
            #expect(expectation.window.contains(change.time.seconds), "\(change) expected in \(expectation.window)")
        }
    }

    @Test func activeSpeakerMovesOnlyAfterTheOtherDominatesForTheConfirmationTime() throws {
        var room = MixerRoom()
        try room.add(0, feed: Self.voice(0, amplitude: 0.2) { _ in true })
        try room.add(1, feed: Self.voice(1, amplitude: 0.5) { $0 >= 1.0 })
        let speakers = try Self.activeSpeakers(&room, seconds: 4)
        // A is shown once its onset has passed, B 1.2 s after it starts out-talking A.
        #expect(Self.firstTime(0, in: speakers) == 0.05)
        let switched = try #require(Self.firstTime(1, in: speakers))
        #expect(abs(switched - 2.2) <= 0.015, "switched at \(switched)")
        #expect(speakers[5..<Int(switched * 100)].allSatisfy { $0 == 0 })
        #expect(speakers[Int(switched * 100)...].allSatisfy { $0 == 1 })
        #expect(room.mixer.isSpeaking(0) && room.mixer.isSpeaking(1))
    }

    @Test func equallyLoudOverlapKeepsTheActiveSpeaker() throws {
        var room = MixerRoom()
        try room.add(0, feed: Self.voice(0, amplitude: 0.3) { _ in true })
        try room.add(1, feed: Self.voice(1, amplitude: 0.3) { $0 >= 0.5 })
        let speakers = try Self.activeSpeakers(&room, seconds: 4)
        #expect(speakers[5...].allSatisfy { $0 == 0 })
    }

    @Test func theNextSpeakerTakesOverSoonerOnceTheActiveOneHasStopped() throws {
        var room = MixerRoom()
        try room.add(0, feed: Self.voice(0, amplitude: 0.3) { $0 < 1.0 })
        try room.add(1, feed: Self.voice(1, amplitude: 0.3) { $0 >= 1.3 })
        let speakers = try Self.activeSpeakers(&room, seconds: 3)
        // A stops speaking at 1.0 + 0.7 s; B, talking since 1.3 s, takes over 0.5 s after
        // it started (the handover time) instead of 1.2 s.
        let switched = try #require(Self.firstTime(1, in: speakers))
        #expect(abs(switched - 1.8) <= 0.015, "switched at \(switched)")
    }

    @Test func aCoughDoesNotTakeTheActiveSpeaker() throws {
        var room = MixerRoom()
        try room.add(0, feed: Self.voice(0, amplitude: 0.2) { $0 < 3.0 })
        try room.add(1, feed: Self.voice(1, amplitude: 0.2) { _ in false })
        // C coughs, loud, for 100 ms while A talks, and again after A has stopped.
        try room.add(2, feed: Self.voice(2, amplitude: 0.9) { ($0 >= 2.0 && $0 < 2.1) || ($0 >= 4.5 && $0 < 4.6) })
        var speakers: [Int?] = []
        var changes: [SpeakingDetector<Int>.Change] = []
        for _ in 0..<600 {
            let result = try room.advance()
            speakers.append(result.activeSpeaker)
            changes += result.speakingChanges
        }
        #expect(speakers[5...].allSatisfy { $0 == 0 })
        // The cough itself is detected as speech: it lights C's speaking state (and hold).
        let cough = changes.filter { $0.participant == 2 }.map { ($0.isSpeaking, $0.time.seconds) }
        #expect(cough.count == 4)
        #expect(cough.first.map { $0.0 && abs($0.1 - 2.05) < 0.015 } == true)
    }

    @Test func removingTheActiveSpeakerReportsAChangeAndTheNextSpeakerTakesOver() throws {
        var room = MixerRoom()
        try room.add(0, feed: Self.voice(0, amplitude: 0.3) { _ in true })
        try room.add(1, feed: Self.voice(1, amplitude: 0.2) { _ in true })
        _ = try Self.activeSpeakers(&room, seconds: 0.5)
        #expect(room.mixer.activeSpeaker == 0)
        try room.mixer.remove(0)
        room.feeds[0] = nil
        #expect(room.mixer.activeSpeaker == nil)
        let result = try room.advance()
        #expect(result.activeSpeakerChanged && result.activeSpeaker == 1)
        #expect(try !room.advance().activeSpeakerChanged)
    }

    @Test func detectorRunsOnLevelsAloneWithoutTheMixer() {
        var detector = SpeakingDetector<String>()
        let added = detector.add("a"), again = detector.add("a")
        #expect(added && !again)
        let recorded = detector.record(level: 20, for: "nobody")
        #expect(!recorded)
        var time = Timestamp.zero
        var onAt: Timestamp?
        for _ in 0..<20 {
            detector.record(level: 30, for: "a")
            detector.finishStep(at: time)
            if let change = detector.changes.first { onAt = change.time }
            time += .milliseconds(10)
        }
        #expect(onAt == .milliseconds(50))
        #expect(detector.activeSpeaker == "a")
        // Between the thresholds: still voiced once voiced (hysteresis), so no hold runs out.
        for _ in 0..<100 {
            detector.record(level: 53, for: "a")
            detector.finishStep(at: time)
            time += .milliseconds(10)
        }
        #expect(detector.isSpeaking("a"))
        // Below the off-threshold for the hold: off on the step 700 ms after the last voiced one.
        var offAt: Timestamp?
        let lastVoicedEnd = time
        for _ in 0..<100 {
            detector.record(level: 60, for: "a")
            detector.finishStep(at: time)
            if let change = detector.changes.first { offAt = change.time }
            time += .milliseconds(10)
        }
        #expect(offAt.map { $0 + .milliseconds(10) - lastVoicedEnd } == .milliseconds(700))
        // A level between the thresholds does not turn a quiet participant on.
        for _ in 0..<100 {
            detector.record(level: 53, for: "a")
            detector.finishStep(at: time)
            time += .milliseconds(10)
        }
        #expect(!detector.isSpeaking("a"))
        #expect(detector.activeSpeaker == "a")
    }
}
