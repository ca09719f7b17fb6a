import ConferMedia
import ConferMixer

/// The audio half of a mix: one file per participant, mixed in 10 ms steps by
/// ``AudioMixer``; its speaking detector picks whom the compositor highlights (and shows
/// large in speaker-led layouts).
///
/// The file written is the shared mix, what a listener who is not a participant hears
/// (an observer, a recording). An input that has ended contributes silence; the mix ends
/// when every input has, or at the mix's duration.
final class MixAudio {
    private var mixer: AudioMixer<ParticipantID>
    private let readers: [AudioFileReader]
    private let participants: [ParticipantID]
    private var buffers: [AudioFrame]
    private var ended: [Bool]
    private let paths: [String]
    private let outputPath: String?
    private let writer: AudioFileWriter?
    /// Steps mixed; step `s` covers `[s × 10 ms, (s + 1) × 10 ms)`.
    private var steps = 0
    private var finished = false
    private var speaker: ParticipantID?
    private var speakerChanges = 0
    private var speakingSteps: [Int]

    /// The most steps to mix (the mix's duration), or nil to mix until every input ends.
    private let maxSteps: Int?

    init(inputs: [String], output: String?, participants: [ParticipantID], maxDuration: Double?) throws {
        maxSteps = maxDuration.map { max(0, Int(($0 / AudioMixer<ParticipantID>.stepDuration.seconds).rounded())) }
        let readers = try inputs.map { try AudioFileReader(path: $0) }
        let channels = readers.map(\.channels).max() ?? 1
        mixer = AudioMixer(configuration: AudioMixerConfiguration(
            outputChannels: channels == 2 ? .stereo : .mono, maximumParticipants: max(1, participants.count)))
        for participant in participants { try mixer.add(participant) }
        self.readers = readers
        self.participants = participants
        buffers = readers.map { AudioFrame(silenceOf: AudioMixer<ParticipantID>.stepFrames, channels: $0.channels) }
        ended = readers.map { _ in false }
        speakingSteps = readers.map { _ in 0 }
        paths = inputs
        outputPath = output
        writer = try output.map { try AudioFileWriter(path: $0, channels: channels, bitrate: channels == 2 ? 64_000 : 32_000) }
    }

    /// Mixes every step that ends by `time`, so the highlight shown at `time` follows the
    /// audio heard up to then.
    func advance(to time: Timestamp, compositor: inout VideoCompositor) throws {
        while !finished, MixSpeakerTimeline.end(ofStep: steps) <= time {
            if let change = try mixStep() { compositor.setSpeaking(change.speaker) }
        }
    }

    /// Mixes the rest of the audio and completes the mix file.
    func finish(compositor: inout VideoCompositor) throws {
        while !finished {
            if let change = try mixStep() { compositor.setSpeaking(change.speaker) }
        }
        try writer?.finish()
    }

    /// Mixes the whole of the audio and completes the mix file, recording whom it
    /// highlights when, for compositors that replay it (segment workers, which compose
    /// parts of the video out of order and so cannot hear the audio as they go).
    func mixAll() throws -> MixSpeakerTimeline {
        var timeline = MixSpeakerTimeline()
        while !finished {
            if let change = try mixStep() { timeline.changes.append(change) }
        }
        try writer?.finish()
        return timeline
    }

    /// Mixes one step; the highlight's change in it, if any.
    private func mixStep() throws -> MixSpeakerTimeline.Change? {
        if let maxSteps, steps >= maxSteps { finished = true; return nil }
        var anyRead = false
        for i in readers.indices where !ended[i] {
            if try readers[i].read(into: &buffers[i], frameCount: AudioMixer<ParticipantID>.stepFrames) {
                try mixer.push(buffers[i], from: participants[i])
                anyRead = true
            } else {
                ended[i] = true
            }
        }
        guard anyRead else { finished = true; return nil }
        let step = steps
        let time = Timestamp(microseconds: Int64(step) * AudioMixer<ParticipantID>.stepDuration.microseconds)
        let result = mixer.mix(at: time)
        steps += 1
        try writer?.write(mixer.sharedMix)
        for (i, level) in result.participants.enumerated() where level.isSpeaking { speakingSteps[i] += 1 }
        // Highlight the active speaker while it speaks; nobody in a pause. Speaker-led
        // layouts keep showing the last speaker large either way.
        let now = result.activeSpeaker.flatMap { mixer.isSpeaking($0) ? $0 : nil }
        guard now != speaker else { return nil }
        speaker = now
        speakerChanges += 1
        return MixSpeakerTimeline.Change(step: step, speaker: now)
    }

    var report: MixAudioReport {
        let stepSeconds = AudioMixer<ParticipantID>.stepDuration.seconds
        return MixAudioReport(inputs: paths, output: outputPath, channels: mixer.configuration.outputChannels.count,
                              seconds: Double(steps) * stepSeconds,
                              speakingSeconds: speakingSteps.map { Double($0) * stepSeconds },
                              speakerChanges: speakerChanges, limitedSteps: mixer.statistics.limitedSteps)
    }
}

/// The highlight changes of a whole audio mix, step by step, replayed on compositors that
/// compose without hearing the audio: each gets the changes a live mix would have made by
/// the time of the frame it composes.
struct MixSpeakerTimeline: Sendable {
    /// The speaker (nil: nobody) highlighted from 10 ms step `step` on.
    struct Change: Sendable, Equatable {
        var step: Int
        var speaker: ParticipantID?
    }

    /// The changes, in step order.
    var changes: [Change] = []

    /// When step `step` ends: a live mix has mixed it, and made its change, by then.
    static func end(ofStep step: Int) -> Timestamp {
        Timestamp(microseconds: Int64(step + 1) * AudioMixer<ParticipantID>.stepDuration.microseconds)
    }

    /// Applies to `compositor` the changes from index `next` on whose steps end by `time`,
    /// moving `next` past them.
    func apply(upTo time: Timestamp, next: inout Int, compositor: inout VideoCompositor) {
        while next < changes.count, Self.end(ofStep: changes[next].step) <= time {
            compositor.setSpeaking(changes[next].speaker)
            next += 1
        }
    }
}
