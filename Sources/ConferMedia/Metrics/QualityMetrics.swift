internal import CYUV

/// A quality score for each plane of an I420 picture and for the picture as a whole.
public struct PlaneScores: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The luma plane's score.
    public var y: Double
    /// The U plane's score.
    public var u: Double
    /// The V plane's score.
    public var v: Double
    /// The whole picture's score (see ``QualityMetrics`` for how planes are combined).
    public var frame: Double

    /// Scores with these values.
    public init(y: Double, u: Double, v: Double, frame: Double) {
        self.y = y
        self.u = u
        self.v = v
        self.frame = frame
    }

    public var description: String { "Y \(y) U \(u) V \(v) frame \(frame)" }
}

/// Why two pictures could not be compared.
public enum QualityMetricsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The pictures differ in size.
    case sizeMismatch(reference: PixelRect, distorted: PixelRect)
    /// SSIM slides 8×8 windows over each plane, so every plane (chroma too) must be at
    /// least 9×9: the luma picture at least 17×17.
    case tooSmallForSSIM(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .sizeMismatch(reference, distorted):
            "cannot compare a \(reference.width)×\(reference.height) reference with a \(distorted.width)×\(distorted.height) picture"
        case let .tooSmallForSSIM(width, height):
            "SSIM needs a picture of at least 17×17, not \(width)×\(height)"
        }
    }
}

/// Objective picture quality between a reference and a distorted copy, with libyuv.
///
/// - PSNR is `10·log10(255² / MSE)` per plane; the frame value pools the squared error of
///   all three planes (libyuv's `I420Psnr`, as FFmpeg's psnr filter reports "average").
///   Identical planes have infinite PSNR; Confer reports ``maxPSNR`` (128 dB, libyuv's
///   `kMaxPsnr`) instead, so scores stay finite, comparable and JSON-encodable.
/// - SSIM is libyuv's: the mean over 8×8 windows on a 4-pixel grid per plane; the frame
///   value is `0.8·Y + 0.1·U + 0.1·V` (libyuv's `I420Ssim` weights). Identical planes score 1.
public enum QualityMetrics {
    /// The PSNR, in dB, reported for identical planes (and the most any plane can score).
    public static let maxPSNR = Double(kMaxPsnr)

    /// PSNR in dB between `reference` and `distorted`, per plane and for the frame.
    public static func psnr(_ reference: VideoFrame, _ distorted: VideoFrame) throws(QualityMetricsError) -> PlaneScores {
        try checkSizes(reference, distorted)
        let sse = planeErrors(reference, distorted)
        let lumaCount = UInt64(reference.width * reference.height)
        let chromaCount = UInt64(reference.layout.chromaWidth * reference.layout.chromaHeight)
        return PlaneScores(y: SumSquareErrorToPsnr(sse.y, lumaCount),
                           u: SumSquareErrorToPsnr(sse.u, chromaCount),
                           v: SumSquareErrorToPsnr(sse.v, chromaCount),
                           frame: SumSquareErrorToPsnr(sse.y + sse.u + sse.v, lumaCount + 2 * chromaCount))
    }

    /// The sum of squared differences of each plane, for callers that pool errors over
    /// many frames themselves.
    public static func sumSquaredErrors(_ reference: VideoFrame, _ distorted: VideoFrame) throws(QualityMetricsError) -> (y: UInt64, u: UInt64, v: UInt64) {
        try checkSizes(reference, distorted)
        return planeErrors(reference, distorted)
    }

    /// SSIM between `reference` and `distorted`, per plane and for the frame.
    public static func ssim(_ reference: VideoFrame, _ distorted: VideoFrame) throws(QualityMetricsError) -> PlaneScores {
        try checkSizes(reference, distorted)
        guard reference.layout.chromaWidth > 8, reference.layout.chromaHeight > 8 else {
            // libyuv divides by the number of windows, which is zero below this size.
            throw .tooSmallForSSIM(width: reference.width, height: reference.height)
        }
        let planes = reference.withPlanes { ry, ru, rv in
            distorted.withPlanes { dy, du, dv in
                (plane(ry, dy), plane(ru, du), plane(rv, dv))
            }
        }
        return PlaneScores(y: planes.0, u: planes.1, v: planes.2,
                           frame: 0.8 * planes.0 + 0.1 * (planes.1 + planes.2))
    }

    private static func plane(_ a: ImagePlane, _ b: ImagePlane) -> Double {
        CalcFrameSsim(a.base, Int32(a.stride), b.base, Int32(b.stride), Int32(a.width), Int32(a.height))
    }

    private static func planeErrors(_ a: VideoFrame, _ b: VideoFrame) -> (y: UInt64, u: UInt64, v: UInt64) {
        func sse(_ p: ImagePlane, _ q: ImagePlane) -> UInt64 {
            ComputeSumSquareErrorPlane(p.base, Int32(p.stride), q.base, Int32(q.stride), Int32(p.width), Int32(p.height))
        }
        return a.withPlanes { ay, au, av in
            b.withPlanes { by, bu, bv in (sse(ay, by), sse(au, bu), sse(av, bv)) }
        }
    }

    private static func checkSizes(_ a: VideoFrame, _ b: VideoFrame) throws(QualityMetricsError) {
        guard a.width == b.width, a.height == b.height else {
            throw .sizeMismatch(reference: PixelRect(width: a.width, height: a.height),
                                distorted: PixelRect(width: b.width, height: b.height))
        }
    }
}
