public import ConferMedia

/// A view on screen bound to one stream: its size, fit or fill, whether it draws, how it
/// competes for the budget, and the RGBA picture that draws write into.
///
/// A value: the picture is a copy-on-write byte array, so a copy read elsewhere (a
/// snapshot for a test or a PNG) costs nothing until the next draw, which then copies it
/// once. A ``FramePacer`` owns its views; read one with ``FramePacer/view(_:)`` and change
/// it through the pacer's setters.
public struct RenderView: Sendable {
    /// The largest width or height a view may have (an 8192² view is 256 MiB of RGBA).
    public static let maximumSide = 8192

    /// The view's name in its pacer.
    public let id: ViewID
    /// The stream whose frames it shows.
    public var stream: StreamID
    /// Width in pixels.
    public private(set) var width: Int
    /// Height in pixels.
    public private(set) var height: Int
    /// Letterbox the whole picture (fit) or crop it to cover the view (fill).
    public var mode: FitFill.Mode
    /// A disabled view draws nothing and frees its share of the budget.
    public var isEnabled: Bool
    /// Its weight when the budget is short.
    public var priority: RenderPriority
    /// At most this many draws per second, or nil for no cap.
    public var frameRateCap: Int?
    /// The picture: `width × height` pixels of R, G, B, A bytes, rows ``stride`` apart.
    /// Bars around a fitted picture are opaque black.
    public private(set) var pixels: [UInt8]
    /// Where the last draw put the picture, or nil before the first draw.
    public private(set) var contentRect: PixelRect?

    /// Holds one I420 frame the size of the content rectangle: the scaled picture waits
    /// there for conversion, so a draw in steady state allocates nothing.
    private var scratch: FramePool?
    /// Whether every pixel is the clear colour (so new bars need no clearing).
    private var isClear = true

    /// A view of `width` × `height`.
    public init(id: ViewID, stream: StreamID, width: Int, height: Int, mode: FitFill.Mode = .fit,
                isEnabled: Bool = true, priority: RenderPriority = .normal, frameRateCap: Int? = nil) throws(RenderError) {
        try Self.checkSize(width: width, height: height)
        if let frameRateCap, !DrawScheduler.allowedFrameRateCaps.contains(frameRateCap) {
            throw RenderError(.invalidRate, "frame-rate cap \(frameRateCap) fps is outside \(DrawScheduler.allowedFrameRateCaps)")
        }
        self.id = id
        self.stream = stream
        self.width = width
        self.height = height
        self.mode = mode
        self.isEnabled = isEnabled
        self.priority = priority
        self.frameRateCap = frameRateCap
        pixels = []
        clear()
    }

    /// Bytes from one row of ``pixels`` to the next.
    public var stride: Int { width * 4 }

    /// The picture as an ``RGBAImage`` (shares the bytes until the next draw).
    public var image: RGBAImage {
        guard let image = RGBAImage(width: width, height: height, pixels: pixels) else {
            preconditionFailure("a view's pixels always hold width × height × 4 bytes")
        }
        return image
    }

    /// Calls `body` with the picture's bytes, without copying them.
    public func withUnsafeRGBA<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try pixels.withUnsafeBytes(body)
    }

    /// Changes the size; the picture is cleared and the next draw fills it.
    public mutating func resize(width: Int, height: Int) throws(RenderError) {
        try Self.checkSize(width: width, height: height)
        guard width != self.width || height != self.height else { return }
        self.width = width
        self.height = height
        clear()
    }

    /// Paints the whole picture opaque black.
    public mutating func clear() {
        let count = width * height * 4
        if pixels.count != count { pixels = [UInt8](repeating: 0, count: count) }
        pixels.withUnsafeMutableBufferPointer { p in
            p.update(repeating: 0)
            for i in Swift.stride(from: 3, to: p.count, by: 4) { p[i] = 255 }
        }
        contentRect = nil
        isClear = true
    }

    /// Draws `frame` into the picture in ``mode`` and returns the rectangle it covered.
    ///
    /// The frame is cropped (fill) and scaled with libyuv in I420 — 1.5 bytes a pixel
    /// rather than the 4 of RGBA, and only at the view's size — then converted to RGBA
    /// straight into the picture at the rectangle's offset. Bars are cleared once, when the
    /// rectangle changes; later draws write only the rectangle.
    @discardableResult
    public mutating func draw(_ frame: VideoFrame, scaler: VideoScaler = VideoScaler()) throws(YUVError) -> PixelRect {
        let target = PixelRect(width: width, height: height)
        let placement = FitFill.rects(sourceWidth: frame.width, sourceHeight: frame.height, target: target, mode: mode)
        let rect = placement.destination
        if rect != contentRect, rect != target, !isClear { clear() }
        let offset = rect.y * stride + rect.x * 4
        if placement.source == PixelRect(width: frame.width, height: frame.height),
           rect.width == frame.width, rect.height == frame.height {
            try convert(frame, atOffset: offset)
        } else {
            let pool = scratchPool(width: rect.width, height: rect.height)
            let scaled = pool.makeFrame(timestamp: frame.timestamp)
            try scaler.scale(frame, from: placement.source, into: scaled, at: PixelRect(width: rect.width, height: rect.height))
            try convert(scaled.finish(), atOffset: offset)
        }
        contentRect = rect
        isClear = false
        return rect
    }

    /// The settings the scheduler needs.
    var laneSettings: DrawScheduler.LaneSettings {
        DrawScheduler.LaneSettings(isEnabled: isEnabled, priority: priority, frameRateCap: frameRateCap)
    }

    private mutating func scratchPool(width: Int, height: Int) -> FramePool {
        if let scratch, scratch.layout.width == width, scratch.layout.height == height { return scratch }
        let pool = FramePool(width: width, height: height, capacity: 1)
        scratch = pool
        return pool
    }

    private mutating func convert(_ frame: VideoFrame, atOffset offset: Int) throws(YUVError) {
        let stride = self.stride
        // withUnsafeMutableBytes rethrows only untyped errors, so the typed one is carried
        // out by hand (as RGBAImage does).
        var failure: YUVError?
        pixels.withUnsafeMutableBytes { buffer in
            let region = UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])
            do throws(YUVError) { try frame.copyRGBA(into: region, stride: stride) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private static func checkSize(width: Int, height: Int) throws(RenderError) {
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height) else {
            throw RenderError(.invalidSize, "view size \(width)×\(height) is outside 1...\(maximumSide) per side")
        }
    }
}
