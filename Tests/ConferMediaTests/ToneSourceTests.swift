import Testing
@testable import ConferMedia

@Suite struct ToneSourceTests {
    @Test func frequenciesSeparateByIndex() {
        #expect(ToneSource.frequency(forIndex: 0) == 300)
        #expect(ToneSource.frequency(forIndex: 3) == 660)
    }

    @Test func spurtsCarryTheToneAndGapsAreSilent() {
        var source = ToneSource(index: 2, amplitude: 0.5, pattern: .speech, seed: 21)
        let audio = source.next(frameCount: 48_000 * 8)
        let spurts = source.talkSpurts(before: 48_000 * 8)
        #expect(spurts.count >= 3, "\(spurts)")
        let f = ToneSource.frequency(forIndex: 2)
        for (i, spurt) in spurts.enumerated() where spurt.upperBound <= audio.samples.count {
            // 20 ms from the middle of the spurt: the tone at about A²/2, nothing at a neighbour's frequency.
            let middle = (spurt.lowerBound + spurt.upperBound) / 2
            let window = Array(audio.samples[middle..<(middle + 960)])
            let power = AudioAnalysis.goertzelPower(window, frequency: f)
            #expect(abs(power - 0.125) < 0.01, "spurt \(i): \(power)")
            #expect(AudioAnalysis.goertzelPower(window, frequency: ToneSource.frequency(forIndex: 3)) < 0.002)
            #expect(source.isTalking(atSample: middle))
            // The gap after the spurt is silent.
            let next = spurts.indices.contains(i + 1) ? spurts[i + 1].lowerBound : audio.samples.count
            guard next - spurt.upperBound > 960 else { continue }
            let gapMiddle = (spurt.upperBound + next) / 2
            let gap = Array(audio.samples[(gapMiddle - 480)..<(gapMiddle + 480)])
            #expect(AudioAnalysis.rms(gap) == 0)
            #expect(AudioAnalysis.goertzelPower(gap, frequency: f) == 0)
            #expect(!source.isTalking(atSample: gapMiddle))
        }
    }

    @Test func spurtAndGapLengthsFollowThePattern() {
        let source = ToneSource(index: 0, seed: 5)
        let spurts = source.talkSpurts(before: 48_000 * 60)
        for (a, b) in zip(spurts, spurts.dropFirst()) {
            let spurt = Double(a.count) / 48_000, gap = Double(b.lowerBound - a.upperBound) / 48_000
            #expect(spurt >= 0.8 && spurt <= 2.5)
            #expect(gap >= 0.3 && gap <= 1.5)
        }
        #expect(spurts.first?.lowerBound == 0)
        #expect(spurts.count > 15)
    }

    @Test func sameSeedSameSamplesWhateverTheChunking() {
        var a = ToneSource(index: 1, channels: 2, seed: 9)
        var b = ToneSource(index: 1, channels: 2, seed: 9)
        var c = ToneSource(index: 1, channels: 2, seed: 10)
        let whole = a.next(frameCount: 48_000 * 3)
        var pieces: [Int16] = []
        var frame = AudioFrame(silenceOf: 480, channels: 2)
        for _ in 0..<300 {
            b.fill(into: &frame)
            pieces += frame.samples
        }
        #expect(whole.samples == pieces)
        #expect(c.next(frameCount: 48_000 * 3).samples != whole.samples)
        #expect(frame.timestamp == Timestamp.milliseconds(2990))
        // Stereo carries the same tone in both channels.
        #expect(stride(from: 0, to: whole.samples.count, by: 2).allSatisfy { whole.samples[$0] == whole.samples[$0 + 1] })
    }

    @Test func fadesAvoidClicks() {
        var source = ToneSource(frequency: 1000, amplitude: 1, seed: 3)
        let audio = source.next(frameCount: 48_000 * 5)
        let spurts = source.talkSpurts(before: 48_000 * 5)
        // At every spurt edge the signal starts and ends near zero rather than jumping.
        for spurt in spurts where spurt.upperBound < audio.samples.count {
            #expect(abs(Int(audio.samples[spurt.lowerBound])) < 1000)
            #expect(abs(Int(audio.samples[spurt.upperBound - 1])) < 1000)
        }
    }

    @Test func continuousToneNeverStops() {
        var source = ToneSource(frequency: 440, amplitude: 0.25, pattern: .continuous)
        let audio = source.next(frameCount: 48_000)
        #expect(abs(AudioAnalysis.rms(audio) - 0.25 / 2.squareRoot()) < 0.001)
        #expect(source.isTalking(atSample: 1_000_000))
    }

    @Test func fillingReusesTheFramesStorage() {
        var source = ToneSource(index: 0)
        var frame = AudioFrame(silenceOf: 960, channels: 1)
        source.fill(into: &frame)
        let before = frame.samples.withUnsafeBufferPointer { $0.baseAddress }
        source.fill(into: &frame)
        #expect(frame.samples.withUnsafeBufferPointer { $0.baseAddress } == before)
    }
}
