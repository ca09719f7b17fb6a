import ConferMedia
import ConferMixer

/// The reading-and-compositing half of a mix: samples every input at the output rate,
/// feeds the compositor the picture each input shows at that moment, brings the speaker
/// highlight to the same moment (advancing the audio mix, or replaying one made before)
/// and composes the canvas.
///
/// Input `i` is ``ParticipantID`` `i`. Output frame `k` is at `k / rate`; it shows input
/// frame `⌊k × inputRate / rate⌋` (frames are repeated or skipped as the rates differ),
/// stamped with that frame's own time, so an input that has ended keeps its last picture
/// until the compositor's placeholder timeout runs out. The output ends when every input has.
final class MixComposer {
    private struct Source {
        let path: String
        let reader: VideoFileReader
        let participant: ParticipantID
        let frameRate: Double
        /// Frames read so far; the next frame read has this index.
        var framesRead = 0
        var ended = false
    }

    private var sources: [Source]
    private var compositor: VideoCompositor
    /// Where the speaker highlight comes from.
    enum Speakers {
        /// No audio: nobody is highlighted.
        case none
        /// The audio mix, advanced frame by frame as the video is composed.
        case live(MixAudio)
        /// A finished audio mix's highlight changes, replayed.
        case replayed(MixSpeakerTimeline)
    }

    /// Where the speaker highlight comes from; set before the first frame.
    var speakers = Speakers.none
    /// The next change of a replayed timeline to apply.
    private var nextSpeakerChange = 0
    private let frameRate: Double
    private let maxFrames: Int
    /// Output frames composed so far.
    private(set) var framesComposed = 0
    /// The index of the output frame ``next()`` composes next (ahead of ``framesComposed``
    /// after a ``skip(to:)``).
    private(set) var nextFrameIndex = 0

    /// Opens every video input, so that bad input fails before any work starts. The audio
    /// (``speakers``) is the job's to open and hand in.
    init(inputs: [String], options: MixOptions) throws {
        var sources: [Source] = []
        for (i, path) in inputs.enumerated() {
            let reader = try VideoFileReader(path: path)
            guard reader.frameRate > 0 else { throw JobError(.invalidInput, "\(path) has no usable frame rate") }
            sources.append(Source(path: path, reader: reader, participant: ParticipantID(UInt32(i)), frameRate: reader.frameRate))
        }
        self.sources = sources
        frameRate = options.frameRate
        maxFrames = options.maxDuration.map { max(0, Int(($0 * options.frameRate).rounded())) } ?? Int.max
        let participants = sources.map(\.participant)
        let configuration = VideoCompositor.Configuration(
            width: options.width, height: options.height, frameRate: options.frameRate,
            placeholderTimeout: options.placeholderTimeout,
            // Every canvas that can be queued, one being encoded and one being composed.
            poolCapacity: options.queueDepth + 2)
        compositor = VideoCompositor(configuration: configuration, layoutKind: options.layout.kind(participants: participants))
        for participant in participants { compositor.add(participant: participant) }
    }

    /// Output frames the inputs will make, when their lengths are known.
    var expectedFrameCount: Int? {
        var longest = 0
        for source in sources {
            guard let count = source.reader.frameCount else { return nil }
            longest = max(longest, Int((Double(count) * frameRate / source.frameRate).rounded(.up)))
        }
        return min(longest, maxFrames)
    }

    /// The next composed canvas, or nil once every input has ended (or the duration is reached).
    func next() throws -> VideoFrame? {
        guard nextFrameIndex < maxFrames, try advanceInputs() else { return nil }
        let time = Self.time(ofFrame: nextFrameIndex, rate: frameRate)
        switch speakers {
        case .none: break
        case .live(let audio): try audio.advance(to: time, compositor: &compositor)
        case .replayed(let timeline): timeline.apply(upTo: time, next: &nextSpeakerChange, compositor: &compositor)
        }
        nextFrameIndex += 1
        framesComposed += 1
        return compositor.compose(at: time)
    }

    /// Moves on to output frame `index` without composing the frames before it: every input
    /// is read up to that moment and the compositor holds what each would show, so the next
    /// ``next()`` composes exactly the canvas a composer that made every frame would. False
    /// when the output ends before `index`. Not while the audio is mixed live, which needs
    /// every step; a replayed highlight is brought to `index`'s moment with the frame.
    func skip(to index: Int) throws -> Bool {
        if case .live = speakers { preconditionFailure("a mix whose audio is mixed as it goes cannot skip frames") }
        while nextFrameIndex < index {
            guard nextFrameIndex < maxFrames, try advanceInputs() else { return false }
            nextFrameIndex += 1
        }
        return nextFrameIndex < maxFrames
    }

    /// Reads every input up to output frame ``nextFrameIndex`` and hands the compositor the
    /// picture each shows then; false when every input has ended.
    private func advanceInputs() throws -> Bool {
        let k = nextFrameIndex
        var anyShowing = false
        for i in sources.indices {
            // The input frame on screen at frame k's time; the tiny bias keeps 30 / 30 × k exact.
            let wanted = Int((Double(k) * sources[i].frameRate / frameRate + 1e-9).rounded(.down))
            var latest: VideoFrame?
            while !sources[i].ended && sources[i].framesRead <= wanted {
                if let frame = try sources[i].reader.next() {
                    latest = frame
                    sources[i].framesRead += 1
                } else {
                    sources[i].ended = true
                }
            }
            if let latest {
                let index = sources[i].framesRead - 1
                compositor.update(participant: sources[i].participant, frame: latest,
                                  at: Self.time(ofFrame: index, rate: sources[i].frameRate))
            }
            if sources[i].framesRead > wanted { anyShowing = true }
        }
        return anyShowing
    }

    /// When frame `index` of a stream at `rate` frames per second is shown.
    private static func time(ofFrame index: Int, rate: Double) -> Timestamp {
        Timestamp(microseconds: Int64((Double(index) * 1_000_000 / rate).rounded()))
    }

    /// Mixes the audio that outlasts the video (live audio only; a replayed mix is finished).
    func finishAudio() throws {
        if case .live(let audio) = speakers { try audio.finish(compositor: &compositor) }
    }

    var compositorStatistics: VideoCompositor.Statistics { compositor.statistics }

    /// The pool canvases are drawn from.
    var canvasPool: FramePool { compositor.pool }

    var inputReports: [MixReport.Input] {
        sources.map { source in
            let info = source.reader.info
            return MixReport.Input(path: source.path, format: info.format.rawValue + "/" + info.codec,
                                   width: source.reader.width, height: source.reader.height,
                                   frameRate: source.frameRate, framesRead: source.framesRead)
        }
    }
}
