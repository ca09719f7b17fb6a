// The host's video work for the host-scale measurements: N participants decoded, laid out
// on one 1280×720 grid, and the canvas encoded once.
import ConferMedia
import ConferCodecs
import ConferMixer
import Confer

/// A compositing host for `participants` of `clips`: a ``CompositeLoop`` over their decoders
/// into a 1280×720 grid, each canvas encoded once with VP8 realtime cpu-used 8 at 1.5 Mbit/s,
/// by default on one encoder thread (the loop already keeps both cores busy; libvpx's extra
/// threads spin-wait and compete with it).
public final class HostScaleHost {
    /// Canvas size and output rate.
    public static let (width, height, frameRate) = (1280, 720, 30.0)
    /// The loop: its statistics say how the work was shared.
    public let loop: CompositeLoop
    private let encoder: VPXEncoder
    private var output = EncodedFrame(codec: .vp8)
    /// Frames encoded so far.
    public private(set) var framesEncoded = 0
    /// Compressed bytes so far.
    public private(set) var encodedBytes = 0

    /// A host over the first `participants` streams of `clips`; `threads` is the loop's (1 or
    /// 2), `encoderThreads` libvpx's.
    public init(clips: HostScaleClips, participants: Int, threads: Int, encoderThreads: Int = 1) throws {
        precondition(participants <= clips.streams.count, "only \(clips.streams.count) streams were prepared")
        let sources = try (0..<participants).map { i -> (participant: ParticipantID, source: any CompositeSource) in
            (ParticipantID(UInt32(i + 1)), try HostScaleParticipant(frames: clips.streams[i], frameRateDivisor: clips.frameRateDivisor))
        }
        let queueDepth = 2
        let compositor = VideoCompositor(configuration: .init(width: Self.width, height: Self.height, frameRate: Self.frameRate,
                                                              poolCapacity: queueDepth + 2))
        loop = CompositeLoop(compositor: compositor, sources: sources, frameRate: Self.frameRate, threads: threads,
                             queueDepth: queueDepth)
        let settings = VideoEncoderSettings(width: Self.width, height: Self.height, frameRate: Self.frameRate,
                                            bitrate: 1_500_000, threads: encoderThreads, speed: 8, errorResilient: true)
        // Every canvas is encoded (no rate-control drops), so the time is honest.
        encoder = try VPXEncoder(codec: .vp8, settings: settings, allowsFrameDropping: false)
        output.data.reserveCapacity(1 << 20)
    }

    /// Decodes, composes and encodes the next `frames` output frames.
    public func run(frames: Int) throws {
        try loop.run(frames: frames) { canvas in
            if try encoder.encode(canvas, into: &output) {
                framesEncoded += 1
                encodedBytes += output.data.count
            }
        }
    }
}
