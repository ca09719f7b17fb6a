import ConferMedia
import ConferJobs

/// A participant's camera: a test pattern in its own colour, or a recorded file played in a loop.
final class MeetingCamera {
    private enum Source {
        case pattern(TestPatternSource)
        case file(path: String, reader: VideoFileReader)
    }

    private var source: Source
    /// Picture width.
    let width: Int
    /// Picture height.
    let height: Int
    /// Pictures per second.
    let frameRate: Double
    /// What the camera shows, for the report.
    let description: String

    /// The synthetic camera of member `index` (colour and frame counter of its own).
    init(patternIndex index: Int, width: Int, height: Int, frameRate: Double, seed: UInt64) {
        source = .pattern(TestPatternSource(width: width, height: height, frameRate: frameRate, colorIndex: index, seed: seed))
        self.width = width
        self.height = height
        self.frameRate = frameRate
        description = "test pattern \(index + 1)"
    }

    /// A camera playing `path` (y4m, ivf or h264) from the start again when it ends.
    init(path: String) throws {
        let reader = try VideoFileReader(path: path)
        guard reader.width > 0, reader.height > 0, reader.width % 2 == 0, reader.height % 2 == 0 else {
            throw JobError(.invalidInput, "\(path): \(reader.width)x\(reader.height) video cannot be sent (sizes must be even)")
        }
        guard reader.frameRate > 0, reader.frameRate <= 120 else { throw JobError(.invalidInput, "\(path) has no usable frame rate") }
        source = .file(path: path, reader: reader)
        width = reader.width
        height = reader.height
        frameRate = reader.frameRate
        description = path
    }

    /// The next picture.
    func next() throws -> VideoFrame {
        switch source {
        case .pattern(var pattern):
            let frame = pattern.next()
            source = .pattern(pattern)
            return frame
        case .file(let path, let reader):
            if let frame = try reader.next() { return try checked(frame, path) }
            let again = try VideoFileReader(path: path)
            source = .file(path: path, reader: again)
            guard let frame = try again.next() else { throw JobError(.invalidInput, "\(path) has no picture to send") }
            return try checked(frame, path)
        }
    }

    private func checked(_ frame: VideoFrame, _ path: String) throws -> VideoFrame {
        guard frame.width == width, frame.height == height else {
            throw JobError(.invalidInput, "\(path) changes size to \(frame.width)x\(frame.height) mid-stream; a camera stream keeps one size")
        }
        return frame
    }
}

/// A participant's microphone: a tone of its own heard only in its turns (``MeetingTalkSchedule``),
/// or a recorded file that falls silent when it ends.
final class MeetingMicrophone {
    private enum Source {
        case tone(ToneSource, MeetingTalkSchedule, member: Int)
        case file(AudioFileReader, ended: Bool)
    }

    private var source: Source
    /// Channels captured.
    let channels: Int
    /// What the microphone hears, for the report.
    let description: String

    /// Member `member`'s tone, gated to its turns.
    init(member: Int, schedule: MeetingTalkSchedule, seed: UInt64) {
        source = .tone(ToneSource(index: member, amplitude: 0.3, pattern: .continuous, seed: seed), schedule, member: member)
        channels = 1
        description = "tone \(Int(ToneSource.frequency(forIndex: member))) Hz in turns"
    }

    /// A microphone playing `path` (wav or opus) once.
    init(path: String) throws {
        let reader = try AudioFileReader(path: path)
        guard (1 ... 2).contains(reader.channels) else { throw JobError(.invalidInput, "\(path) has \(reader.channels) channels; use mono or stereo") }
        source = .file(reader, ended: false)
        channels = reader.channels
        description = path
    }

    /// Whether member `member` is scheduled to talk at `time` (nil for recorded audio).
    func isScheduledToTalk(at time: Timestamp) -> Bool? {
        guard case .tone(_, let schedule, let member) = source else { return nil }
        return schedule.talker(at: time) == member
    }

    /// Overwrites `frame` with the 10 ms captured at `time`.
    func capture(into frame: inout AudioFrame, at time: Timestamp) throws {
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
