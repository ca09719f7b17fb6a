import Testing
@testable import ConferMedia

@Suite struct NoisePatternSourceTests {
    @Test func sameSeedSameFramesOtherSeedOtherFrames() throws {
        let a = NoisePatternSource(width: 128, height: 96, seed: 7)
        let b = NoisePatternSource(width: 128, height: 96, seed: 7)
        let c = NoisePatternSource(width: 128, height: 96, seed: 8)
        for n in [0, 5, 300] {
            #expect(try QualityMetrics.psnr(a.render(frameIndex: n), b.render(frameIndex: n)).frame == QualityMetrics.maxPSNR)
            #expect(try QualityMetrics.psnr(a.render(frameIndex: n), c.render(frameIndex: n)).y < 20)
        }
    }

    @Test func framesAreBusyAndChange() throws {
        var source = NoisePatternSource(width: 160, height: 120, seed: 1)
        let f0 = source.next(), f1 = source.next()
        // Consecutive frames differ a lot (motion plus fresh grain): no cheap prediction.
        #expect(try QualityMetrics.psnr(f0, f1).y < 25)
        // Busy: the luma spread is wide and neighbouring pixels differ.
        var sum = 0.0, sumSquares = 0.0, gradient = 0
        for y in 0..<120 { for x in 0..<160 {
            let v = Double(f0.y[x, y]); sum += v; sumSquares += v * v
            if x > 0 { gradient += abs(Int(f0.y[x, y]) - Int(f0.y[x - 1, y])) }
        } }
        let n = 160.0 * 120, deviation = (sumSquares / n - (sum / n) * (sum / n)).squareRoot()
        #expect(deviation > 15, "luma deviation \(deviation)")
        #expect(Double(gradient) / n > 8, "mean horizontal step \(Double(gradient) / n)")
        #expect(source.pool.overflowCount == 0)
    }

    @Test func withoutGrainTheTextureOnlyPans() throws {
        let source = NoisePatternSource(width: 128, height: 96, seed: 2, grain: 0)
        // One second apart the pan has moved the texture, but the picture is the same stuff.
        let f0 = source.render(frameIndex: 0), f30 = source.render(frameIndex: 30)
        #expect(try QualityMetrics.psnr(f0, f30).y < 30)
        var histogram0 = [Int](repeating: 0, count: 256), histogram30 = histogram0
        for y in 0..<96 { for x in 0..<128 { histogram0[Int(f0.y[x, y])] += 1; histogram30[Int(f30.y[x, y])] += 1 } }
        // A wrap-around pan moves pixels without changing them.
        #expect(histogram0 == histogram30)
    }
}
