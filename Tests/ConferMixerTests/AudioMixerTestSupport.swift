import ConferMedia
import Foundation
@testable import ConferMixer

/// A small room for mixer tests: participants numbered 0, 1, 2 … each fed by a closure
/// that fills its next 10 ms, stepping in virtual time from zero.
struct MixerRoom {
    typealias Feed = (_ step: Int, _ frame: inout AudioFrame) -> Void

    var mixer: AudioMixer<Int>
    var feeds: [Int: Feed] = [:]
    var frames: [Int: AudioFrame] = [:]
    var step = 0
    var time: Timestamp { .milliseconds(Int64(step) * 10) }

    init(configuration: AudioMixerConfiguration = AudioMixerConfiguration()) {
        mixer = AudioMixer(configuration: configuration)
    }

    /// Adds participant `id` fed by `source` in `channels`.
    mutating func add(_ id: Int, channels: Int = 1, feed: @escaping Feed) throws {
        try mixer.add(id)
        feeds[id] = feed
        frames[id] = AudioFrame(silenceOf: AudioMixer<Int>.stepFrames, channels: channels)
    }

    /// Adds participant `id` playing `tone`.
    mutating func add(_ id: Int, tone: ToneSource) throws {
        var tone = tone
        try add(id, channels: tone.channels) { _, frame in tone.fill(into: &frame) }
    }

    /// Pushes 10 ms from every fed participant and mixes one step.
    @discardableResult
    mutating func advance() throws -> AudioMixer<Int>.MixResult {
        for id in feeds.keys.sorted() {
            guard var frame = frames.removeValue(forKey: id), let feed = feeds[id] else { continue }
            feed(step, &frame)
            try mixer.push(frame, from: id)
            frames[id] = frame
        }
        let result = mixer.mix(at: time)
        step += 1
        return result
    }

    /// Runs `steps` steps and returns, per listener in `listeners`, the samples it heard.
    @discardableResult
    mutating func record(steps: Int, listeners: [Int]) throws -> [Int: [Int16]] {
        var heard: [Int: [Int16]] = [:]
        for _ in 0..<steps {
            try advance()
            for l in listeners { heard[l, default: []] += mixer.mix(for: l).samples }
        }
        return heard
    }
}

/// Power at `frequency` relative to a tone of this amplitude (1 = full-scale sine is 0.5).
func power(_ samples: [Int16], _ frequency: Double, channels: Int = 1, channel: Int? = nil) -> Double {
    samples.withUnsafeBufferPointer {
        AudioAnalysis.goertzelPower($0, frequency: frequency, channels: channels, channel: channel)
    }
}

/// Decibels of `a` relative to `b` (power ratio).
func decibels(_ a: Double, over b: Double) -> Double {
    10 * log10(max(a, 1e-30) / max(b, 1e-30))
}

/// Frame filler writing `value(n)` into every channel of sample frame `n` (counted from 0).
func filler(channels: Int = 1, _ value: @escaping (Int) -> Int16) -> MixerRoom.Feed {
    { step, frame in
        let frames = frame.frameCount
        for i in 0..<frames {
            let v = value(step * frames + i)
            for c in 0..<frame.channels { frame.samples[i * frame.channels + c] = v }
        }
    }
}
