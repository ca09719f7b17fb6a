package import ConferMedia


/// A participant's microphone: a tone of its own heard only in its turns (``TalkSchedule``),
/// or a recorded file that falls silent when it ends.
package final class MicrophoneSource {
    private enum Source {
        case tone(ToneSource, TalkSchedule, member: Int)
        case file(AudioFileReader, ended: Bool)
    }

    private var source: Source
    /// Channels captured.
    package let channels: Int
    /// What the microphone hears, for the report.
    package let description: String

    /// Member `member`'s tone, gated to its turns.
    package init(member: Int, schedule: TalkSchedule, seed: UInt64) {
        source = .tone(ToneSource(index: member, amplitude: 0.3, pattern: .continuous, seed: seed), schedule, member: member)
        channels = 1
        description = "tone \(Int(ToneSource.frequency(forIndex: member))) Hz in turns"
    }

    /// A microphone playing `path` (wav or opus) once.
    package init(path: String) throws {
        let reader = try AudioFileReader(path: path)
        guard (1 ... 2).contains(reader.channels) else { throw JobError(.invalidInput, "\(path) has \(reader.channels) channels; use mono or stereo") }
        source = .file(reader, ended: false)
        channels = reader.channels
        description = path
    }

    /// Whether member `member` is scheduled to talk at `time` (nil for recorded audio).
    package func isScheduledToTalk(at time: Timestamp) -> Bool? {
        guard case .tone(_, let schedule, let member) = source else { return nil }
        return schedule.talker(at: time) == member
    }

    /// Overwrites `frame` with the 10 ms captured at `time`.
    package func capture(into frame: inout AudioFrame, at time: Timestamp) throws {
        switch source {
        case .tone(var tone, let schedule, let member):
            tone.fill(into: &frame)
            schedule.apply(to: &frame, member: member, start: time)
            source = .tone(tone, schedule, member: member)
        case .file(let reader, let ended):
            let count = frame.frameCount
            let read = ended ? false : try reader.read(into: &frame, frameCount: count)
            if !read || frame.frameCount < count {
                if !ended { source = .file(reader, ended: true) }
                if frame.frameCount == count, frame.channels == channels {
                    frame.samples.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                } else {
                    frame = AudioFrame(silenceOf: count, channels: channels)
                }
            }
        }
        frame.timestamp = time
    }
}
