/// Mean and worst PSNR and SSIM over a run of frames: what a codec test or benchmark
/// reports. `Codable`, so it prints as JSON beside other stats.
///
/// Means are plain averages of per-frame scores, so frames identical to their reference
/// count at ``QualityMetrics/maxPSNR``.
public struct QualitySummary: Hashable, Sendable, Codable {
    /// How many frames were added.
    public private(set) var frameCount = 0
    /// Mean PSNR in dB per plane and frame (zero before the first frame).
    public private(set) var meanPSNR = PlaneScores(y: 0, u: 0, v: 0, frame: 0)
    /// Lowest PSNR seen per plane and frame (``QualityMetrics/maxPSNR`` before the first frame).
    public private(set) var minPSNR = PlaneScores(y: QualityMetrics.maxPSNR, u: QualityMetrics.maxPSNR,
                                                  v: QualityMetrics.maxPSNR, frame: QualityMetrics.maxPSNR)
    /// Mean SSIM per plane and frame (zero before the first frame).
    public private(set) var meanSSIM = PlaneScores(y: 0, u: 0, v: 0, frame: 0)
    /// Lowest SSIM seen per plane and frame (1 before the first frame).
    public private(set) var minSSIM = PlaneScores(y: 1, u: 1, v: 1, frame: 1)

    /// An empty summary.
    public init() {}

    /// Adds one frame's scores.
    public mutating func add(psnr: PlaneScores, ssim: PlaneScores) {
        frameCount += 1
        // A running mean needs no growing storage and stays accurate over long runs.
        let weight = 1 / Double(frameCount)
        meanPSNR = Self.blend(meanPSNR, psnr, weight)
        meanSSIM = Self.blend(meanSSIM, ssim, weight)
        minPSNR = Self.lower(minPSNR, psnr)
        minSSIM = Self.lower(minSSIM, ssim)
    }

    /// Scores `distorted` against `reference` and adds the result.
    public mutating func add(reference: VideoFrame, distorted: VideoFrame) throws(QualityMetricsError) {
        let p = try QualityMetrics.psnr(reference, distorted)
        let s = try QualityMetrics.ssim(reference, distorted)
        add(psnr: p, ssim: s)
    }

    private static func blend(_ mean: PlaneScores, _ x: PlaneScores, _ w: Double) -> PlaneScores {
        PlaneScores(y: mean.y + (x.y - mean.y) * w, u: mean.u + (x.u - mean.u) * w,
                    v: mean.v + (x.v - mean.v) * w, frame: mean.frame + (x.frame - mean.frame) * w)
    }

    private static func lower(_ a: PlaneScores, _ b: PlaneScores) -> PlaneScores {
        PlaneScores(y: min(a.y, b.y), u: min(a.u, b.u), v: min(a.v, b.v), frame: min(a.frame, b.frame))
    }
}
