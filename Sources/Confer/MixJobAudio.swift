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
        let step = AudioMixer<ParticipantID>.stepDuration
        while !finished, Timestamp(microseconds: Int64(steps + 1) * step.microseconds) <= time {
            try mixStep(compositor: &compositor)
        }
    }

    /// Mixes the rest of the audio and completes the mix file.
    func finish(compositor: inout VideoCompositor) throws {
        while !finished { try mixStep(compositor: &compositor) }
        try writer?.finish()
    }

    private func mixStep(compositor: inout VideoCompositor) throws {
        if let maxSteps, steps >= maxSteps { finished = true; return }
        var anyRead = false
        for i in readers.indices where !ended[i] {
            if try readers[i].read(into: &buffers[i], frameCount: AudioMixer<ParticipantID>.stepFrames) {
                try mixer.push(buffers[i], from: participants[i])
                anyRead = true
            } else {
                ended[i] = true
            }
        }
        guard anyRead else { finished = true; return }
        let time = Timestamp(microseconds: Int64(steps) * AudioMixer<ParticipantID>.stepDuration.microseconds)
        let result = mixer.mix(at: time)
        steps += 1
        try writer?.write(mixer.sharedMix)
        for (i, level) in result.participants.enumerated() where level.isSpeaking { speakingSteps[i] += 1 }
        // Highlight the active speaker while it speaks; nobody in a pause. Speaker-led
        // layouts keep showing the last speaker large either way.
        let now = result.activeSpeaker.flatMap { mixer.isSpeaking($0) ? $0 : nil }
        if now != speaker {
            speaker = now
            speakerChanges += 1
            compositor.setSpeaking(now)
        }
    }

    var report: MixAudioReport {
        let stepSeconds = AudioMixer<ParticipantID>.stepDuration.seconds
        return MixAudioReport(inputs: paths, output: outputPath, channels: mixer.configuration.outputChannels.count,
                              seconds: Double(steps) * stepSeconds,
                              speakingSeconds: speakingSteps.map { Double($0) * stepSeconds },
                              speakerChanges: speakerChanges, limitedSteps: mixer.statistics.limitedSteps)
    }
}
