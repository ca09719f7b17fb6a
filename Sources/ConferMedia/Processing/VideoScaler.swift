internal import CYUV

/// Scales I420 pictures with libyuv, whole or between sub-rectangles.
///
/// A value with no state but its filter: a call writes into the caller's frame and
/// allocates nothing in Swift. (libyuv's filtered paths keep a few rows of scratch on
/// the C heap per call; ``Filter/none`` does not.)
public struct VideoScaler: Hashable, Sendable {
    /// The resampling filter, fastest first.
    public enum Filter: String, Hashable, Sendable, Codable, CaseIterable {
        /// Nearest neighbour: fastest, blocky.
        case none
        /// Interpolates horizontally only.
        case linear
        /// Bilinear: good upscaling, aliases when shrinking a lot.
        case bilinear
        /// Box averaging: best for downscaling.
        case box

        var libyuv: FilterMode {
            switch self {
            case .none: kFilterNone
            case .linear: kFilterLinear
            case .bilinear: kFilterBilinear
            case .box: kFilterBox
            }
        }
    }

    /// The filter every call uses.
    public var filter: Filter

    /// A scaler using `filter`.
    public init(filter: Filter = .bilinear) { self.filter = filter }

    /// Scales all of `source` to fill all of `destination`.
    public func scale(_ source: VideoFrame, into destination: borrowing MutableVideoFrame) throws(YUVError) {
        try scale(source, from: PixelRect(width: source.width, height: source.height),
                  into: destination, at: PixelRect(width: destination.width, height: destination.height))
    }

    /// A new frame from `pool` holding `source` scaled to the pool's size.
    public func scaled(_ source: VideoFrame, using pool: FramePool) throws(YUVError) -> VideoFrame {
        let frame = pool.makeFrame(timestamp: source.timestamp)
        try scale(source, into: frame)
        return frame.finish()
    }

    /// Draws `source` into `rect` of `destination` in `mode` (letterboxed or cropped), and
    /// returns the rectangle it wrote. Bars left by `.fit` are not painted.
    @discardableResult
    public func scale(_ source: VideoFrame, into destination: borrowing MutableVideoFrame, at rect: PixelRect,
                      mode: FitFill.Mode) throws(YUVError) -> PixelRect {
        let placement = FitFill.rects(sourceWidth: source.width, sourceHeight: source.height, target: rect, mode: mode)
        try scale(source, from: placement.source, into: destination, at: placement.destination)
        return placement.destination
    }

    /// Scales the `sourceRect` crop of `source` onto `destinationRect` of `destination`,
    /// leaving the rest of `destination` untouched.
    ///
    /// Both rectangles must lie inside their pictures and start on even coordinates (I420
    /// chroma covers 2×2 pixels). An empty destination rectangle writes nothing.
    public func scale(_ source: VideoFrame, from sourceRect: PixelRect,
                      into destination: borrowing MutableVideoFrame, at destinationRect: PixelRect) throws(YUVError) {
        if destinationRect.isEmpty { return }
        try Self.check(sourceRect, inside: source.layout, role: "source")
        try Self.check(destinationRect, inside: destination.layout, role: "destination")
        let dy = destination.y, du = destination.u, dv = destination.v
        let (dxc, dyc) = (destinationRect.x / 2, destinationRect.y / 2)
        let (sxc, syc) = (sourceRect.x / 2, sourceRect.y / 2)
        let code = source.withPlanes { sy, su, sv in
            I420Scale(sy.base + sourceRect.y * sy.stride + sourceRect.x, Int32(sy.stride),
                      su.base + syc * su.stride + sxc, Int32(su.stride),
                      sv.base + syc * sv.stride + sxc, Int32(sv.stride),
                      Int32(sourceRect.width), Int32(sourceRect.height),
                      dy.base + destinationRect.y * dy.stride + destinationRect.x, Int32(dy.stride),
                      du.base + dyc * du.stride + dxc, Int32(du.stride),
                      dv.base + dyc * dv.stride + dxc, Int32(dv.stride),
                      Int32(destinationRect.width), Int32(destinationRect.height),
                      filter.libyuv)
        }
        if code != 0 {
            throw YUVError(.library, function: "I420Scale", code: code,
                           "scaling \(sourceRect) to \(destinationRect) failed")
        }
    }

    static func check(_ rect: PixelRect, inside layout: FrameLayout, role: String) throws(YUVError) {
        guard !rect.isEmpty, PixelRect(width: layout.width, height: layout.height).contains(rect) else {
            throw YUVError(.invalidArgument, function: "I420Scale",
                           "\(role) rectangle \(rect) is empty or outside the \(layout.width)×\(layout.height) picture")
        }
        guard rect.isChromaAligned else {
            throw YUVError(.invalidArgument, function: "I420Scale",
                           "\(role) rectangle \(rect) must start on an even column and row")
        }
    }
}
