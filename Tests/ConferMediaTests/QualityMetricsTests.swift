import Foundation
import Testing
@testable import ConferMedia

@Suite struct QualityMetricsTests {
    @Test func identicalFramesScoreTheCap() throws {
        let a = ImageTestSupport.gradient(width: 64, height: 48)
        let b = ImageTestSupport.gradient(width: 64, height: 48)
        let psnr = try QualityMetrics.psnr(a, b)
        #expect(psnr == PlaneScores(y: 128, u: 128, v: 128, frame: 128))
        #expect(QualityMetrics.maxPSNR == 128)
        let ssim = try QualityMetrics.ssim(a, b)
        #expect(ssim == PlaneScores(y: 1, u: 1, v: 1, frame: 1))
    }

    @Test func psnrOfKnownNoiseMatchesTheFormula() throws {
        let reference = ImageTestSupport.solid(width: 64, height: 48, .grey)
        let distorted = ImageTestSupport.noisy(reference, amplitude: 5, seed: 42)
        // Squared error by hand, luma only (chroma is untouched).
        var sse = 0
        for y in 0..<48 { for x in 0..<64 {
            let d = Int(reference.y[x, y]) - Int(distorted.y[x, y]); sse += d * d
        } }
        #expect(sse > 0)
        let lumaCount = 64.0 * 48, allCount = lumaCount + 2 * 32 * 24
        let expectedY = 10 * log10(255 * 255 * lumaCount / Double(sse))
        let expectedFrame = 10 * log10(255 * 255 * allCount / Double(sse))
        let psnr = try QualityMetrics.psnr(reference, distorted)
        #expect(abs(psnr.y - expectedY) < 0.01, "\(psnr.y) vs \(expectedY)")
        #expect(abs(psnr.frame - expectedFrame) < 0.01, "\(psnr.frame) vs \(expectedFrame)")
        #expect(psnr.u == 128 && psnr.v == 128)
        // Uniform noise in −5…5 has MSE 10: about 38.1 dB.
        #expect(abs(psnr.y - 10 * log10(255.0 * 255 / 10)) < 0.5)
        let sums = try QualityMetrics.sumSquaredErrors(reference, distorted)
        #expect(sums.y == UInt64(sse) && sums.u == 0 && sums.v == 0)
    }

    @Test func ssimOrdersDistortionsSensibly() throws {
        let reference = ImageTestSupport.gradient(width: 96, height: 64)
        let mild = try QualityMetrics.ssim(reference, ImageTestSupport.noisy(reference, amplitude: 3, seed: 1))
        let heavy = try QualityMetrics.ssim(reference, ImageTestSupport.noisy(reference, amplitude: 40, seed: 1))
        #expect(mild.y < 1 && heavy.y < mild.y, "mild \(mild.y), heavy \(heavy.y)")
        #expect(mild.y > 0.8, "\(mild.y)")
        #expect(heavy.frame < mild.frame)
        #expect(mild.u == 1 && mild.v == 1)   // chroma was not touched
        #expect(abs(mild.frame - (0.8 * mild.y + 0.2)) < 1e-12)
        let psnrMild = try QualityMetrics.psnr(reference, ImageTestSupport.noisy(reference, amplitude: 3, seed: 1))
        let psnrHeavy = try QualityMetrics.psnr(reference, ImageTestSupport.noisy(reference, amplitude: 40, seed: 1))
        #expect(psnrHeavy.y < psnrMild.y)
    }

    @Test func mismatchedSizesThrow() {
        let a = ImageTestSupport.gradient(width: 64, height: 48)
        let b = ImageTestSupport.gradient(width: 64, height: 50)
        #expect(throws: QualityMetricsError.sizeMismatch(reference: PixelRect(width: 64, height: 48),
                                                         distorted: PixelRect(width: 64, height: 50))) {
            try QualityMetrics.psnr(a, b)
        }
        #expect(throws: QualityMetricsError.self) { try QualityMetrics.ssim(a, b) }
        var summary = QualitySummary()
        #expect(throws: QualityMetricsError.self) { try summary.add(reference: a, distorted: b) }
        #expect(summary.frameCount == 0)
    }

    @Test func ssimRejectsPicturesTooSmallForItsWindows() throws {
        let a = ImageTestSupport.gradient(width: 16, height: 16)
        #expect(throws: QualityMetricsError.tooSmallForSSIM(width: 16, height: 16)) { try QualityMetrics.ssim(a, a) }
        let b = ImageTestSupport.gradient(width: 18, height: 18)
        #expect(try QualityMetrics.ssim(b, b).frame == 1)
    }

    @Test func summaryAccumulatesAndEncodes() throws {
        var summary = QualitySummary()
        summary.add(psnr: PlaneScores(y: 40, u: 45, v: 46, frame: 41), ssim: PlaneScores(y: 0.98, u: 0.99, v: 0.99, frame: 0.982))
        summary.add(psnr: PlaneScores(y: 30, u: 35, v: 36, frame: 31), ssim: PlaneScores(y: 0.90, u: 0.95, v: 0.97, frame: 0.912))
        let reference = ImageTestSupport.gradient(width: 32, height: 32)
        try summary.add(reference: reference, distorted: reference)
        #expect(summary.frameCount == 3)
        #expect(abs(summary.meanPSNR.y - (40 + 30 + 128) / 3) < 1e-9)
        #expect(summary.minPSNR.y == 30 && summary.minPSNR.frame == 31)
        #expect(abs(summary.meanSSIM.y - (0.98 + 0.90 + 1) / 3) < 1e-9)
        #expect(summary.minSSIM.y == 0.90)
        let json = try JSONEncoder().encode(summary)
        #expect(try JSONDecoder().decode(QualitySummary.self, from: json) == summary)
        #expect(String(decoding: json, as: UTF8.self).contains("meanPSNR"))
    }
}
