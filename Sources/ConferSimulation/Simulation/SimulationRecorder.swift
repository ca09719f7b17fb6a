public import ConferMedia

/// The viewer's side of a ``Simulation``: lines what the receiver rendered up with what was
/// captured, frame for frame, and measures quality and end-to-end delay.
///
/// **The output timeline.** Output frame *k* stands for input frame *k* (same count, same
/// frame rate as the input). It is the picture the receiver rendered for input frame *k*;
/// when frame *k* never rendered (lost and not recovered, dropped by the jitter buffer or
/// the sender's encoder, or skipped while the receiver waited for a keyframe) it is the last
/// picture rendered before it, repeated — what a viewer kept seeing while the video froze;
/// before the first picture it is black. So PSNR of output *k* against input *k* measures
/// what loss, freezes and the codec did to the picture, while delay is measured apart:
/// each rendered frame's render time minus its capture time (``endToEndDelays``).
///
/// Pictures render in capture order (the jitter buffer delivers in order), so output *k*
/// is settled as soon as a frame captured at or after *k* renders; input frames are kept
/// only until then.
public final class SimulationRecorder {
    private let output: (VideoFrame) throws -> Void
    private let black: VideoFrame
    /// Input frames not yet settled, from `nextOutput` on.
    private var pending: [VideoFrame] = []
    private var firstPending = 0
    private var lastRendered: VideoFrame?
    private var nextOutput = 0

    /// PSNR and SSIM of every output frame against its input frame.
    public private(set) var quality = QualitySummary()
    /// Render time minus capture time of every rendered frame, in render order.
    public private(set) var endToEndDelays: [TimeDelta] = []
    /// Output frames written.
    public private(set) var framesWritten = 0
    /// Output frames that showed their own input frame's picture.
    public private(set) var framesShown = 0
    /// Output frames that repeated an earlier picture.
    public private(set) var framesRepeated = 0
    /// Output frames that were black (nothing rendered yet).
    public private(set) var framesBlank = 0
    /// Rendered frames that came after a later frame had rendered (none are expected).
    public private(set) var framesOutOfOrder = 0
    /// Rendered frames whose picture size differed from the input's (not compared).
    public private(set) var framesMismatched = 0
    /// Rendered frames that arrived smaller than the input (the sender encoded them smaller
    /// while its bitrate was low) and were scaled up to it, as a display would, before
    /// being written and scored.
    public private(set) var framesScaled = 0
    private var scalePool: FramePool?

    /// A recorder for `width` × `height` input that hands every output frame to `output`.
    public init(width: Int, height: Int, output: @escaping (VideoFrame) throws -> Void = { _ in }) {
        self.output = output
        let frame = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
        frame.fill(y: 16, u: 128, v: 128)
        black = frame.finish()
    }

    /// Input frame `index` was captured (indices count up from 0 without gaps).
    public func captured(_ frame: VideoFrame, index: Int) {
        precondition(index == firstPending + pending.count, "frames are captured in order")
        pending.append(frame)
    }

    /// The receiver rendered `frame`, the picture of input frame `captureIndex` captured at
    /// `captureTime`, at `renderTime`.
    public func rendered(_ frame: VideoFrame, captureIndex: Int, captureTime: Timestamp, renderTime: Timestamp) throws {
        var frame = frame
        if (frame.width, frame.height) != (black.width, black.height), frame.width <= black.width, frame.height <= black.height {
            let pool = scalePool ?? FramePool(layout: FrameLayout(width: black.width, height: black.height), capacity: 4)
            scalePool = pool
            frame = try VideoScaler(filter: .bilinear).scaled(frame, using: pool)
            framesScaled += 1
        }
        endToEndDelays.append(renderTime - captureTime)
        guard captureIndex >= nextOutput else {
            framesOutOfOrder += 1
            return
        }
        while nextOutput < captureIndex, nextOutput < firstPending + pending.count {
            try emit(lastRendered, shown: false)
        }
        lastRendered = frame
        if nextOutput == captureIndex, nextOutput < firstPending + pending.count {
            try emit(frame, shown: true)
        }
    }

    /// Settles every remaining captured frame (repeating the last picture) and returns.
    public func finish() throws {
        while !pending.isEmpty {
            try emit(lastRendered, shown: false)
        }
    }

    /// Writes output frame `nextOutput` and scores it against its input frame.
    private func emit(_ picture: VideoFrame?, shown: Bool) throws {
        let reference = pending.removeFirst()
        firstPending += 1
        nextOutput += 1
        let picture = picture ?? black
        if picture.width != reference.width || picture.height != reference.height {
            framesMismatched += 1
        } else {
            let psnr = try QualityMetrics.psnr(reference, picture)
            // libyuv's SSIM needs pictures above 16×16; below that it is not a number.
            let ssim = (try? QualityMetrics.ssim(reference, picture)) ?? PlaneScores(y: .nan, u: .nan, v: .nan, frame: .nan)
            quality.add(psnr: psnr, ssim: ssim)
        }
        if shown {
            framesShown += 1
        } else if lastRendered == nil {
            framesBlank += 1
        } else {
            framesRepeated += 1
        }
        framesWritten += 1
        try output(picture)
    }
}
