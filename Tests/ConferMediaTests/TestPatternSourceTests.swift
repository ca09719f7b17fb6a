import Foundation
import Testing
@testable import ConferMedia

@Suite struct TestPatternSourceTests {
    @Test func paletteColoursAreWellSeparated() {
        #expect(TestPalette.count >= 16)
        for i in 0..<TestPalette.count {
            for j in (i + 1)..<TestPalette.count {
                let d = TestPalette.color(at: i).distance(to: TestPalette.color(at: j))
                #expect(d >= (j < 16 ? 60 : 50), "colours \(i) and \(j) are only \(d) apart")
            }
            #expect(TestPalette.color(at: i).distance(to: .white) > 60)
            #expect(TestPalette.color(at: i).distance(to: .black) > 60)
        }
        #expect(TestPalette.color(at: TestPalette.count) == TestPalette.color(at: 0))
        #expect(TestPalette.color(at: -1) == TestPalette.color(at: TestPalette.count - 1))
    }

    @Test func sourceColourFillsTheProbeArea() {
        var a = TestPatternSource(width: 320, height: 240, colorIndex: 0)
        var b = TestPatternSource(width: 320, height: 240, colorIndex: 5)
        let fa = a.next(), fb = b.next()
        let whole = PixelRect(width: 320, height: 240)
        #expect(TestPatternSource.readColor(from: fa, in: whole) == a.color)
        #expect(TestPatternSource.readColor(from: fb, in: whole) == b.color)
        #expect(a.color != b.color)
        // Most of the picture is the colour.
        var matching = 0
        for y in stride(from: 0, to: 240, by: 4) { for x in stride(from: 0, to: 320, by: 4) where fa.y[x, y] == a.color.y { matching += 1 } }
        #expect(Double(matching) / Double(80 * 60) > 0.5)
    }

    @Test func digitsAndMovingBoxChangeBetweenFrames() {
        var source = TestPatternSource(width: 320, height: 240, colorIndex: 2, seed: 9)
        let f0 = source.next(), f1 = source.next()
        let digits = TestPatternSource.digitsRect(in: PixelRect(width: 320, height: 240))
        #expect(Self.differingPixels(f0, f1, in: digits) > 20)
        // Lit digit pixels are white on black.
        #expect(Self.count(f0, in: digits, value: 235) > 100)
        let band = PixelRect(x: 0, y: 100, width: 320, height: 60)
        #expect(Self.differingPixels(f0, f1, in: band) > 0)
        #expect(f1.timestamp == Timestamp(microseconds: 33_333))
        #expect(source.frameIndex == 2)
    }

    @Test func sameSeedSameFrames() throws {
        let a = TestPatternSource(width: 160, height: 120, colorIndex: 1, seed: 3)
        let b = TestPatternSource(width: 160, height: 120, colorIndex: 1, seed: 3)
        for n in [0, 17, 1000] {
            #expect(try QualityMetrics.psnr(a.render(frameIndex: n), b.render(frameIndex: n)).frame == QualityMetrics.maxPSNR)
        }
    }

    @Test(arguments: [(320, 240), (640, 360), (176, 144), (96, 64)])
    func counterReadsBackFromRawFrames(width: Int, height: Int) {
        let source = TestPatternSource(width: width, height: height, colorIndex: 4)
        for n in [0, 1, 2, 255, 256, 4097, 43_690, 65_535, 65_536 + 7] {
            #expect(TestPatternSource.readFrameCounter(from: source.render(frameIndex: n)) == n & 0xFFFF, "frame \(n)")
        }
    }

    @Test(arguments: VideoScaler.Filter.allCases)
    func counterReadsBackAtQuarterArea(filter: VideoScaler.Filter) throws {
        let source = TestPatternSource(width: 320, height: 240, colorIndex: 7)
        let pool = FramePool(width: 160, height: 120)
        for n in [0, 1, 12_345, 65_535] {
            let small = try VideoScaler(filter: filter).scaled(source.render(frameIndex: n), using: pool)
            #expect(TestPatternSource.readFrameCounter(from: small) == n, "frame \(n)")
        }
    }

    @Test func counterReadsBackFromASlotInAComposite() throws {
        let canvas = MutableVideoFrame(layout: FrameLayout(width: 640, height: 360))
        canvas.fill(with: .grey)
        let sources = (0..<4).map { TestPatternSource(width: 320, height: 240, colorIndex: $0, seed: UInt64($0)) }
        var slots: [PixelRect] = []
        for (i, source) in sources.enumerated() {
            let slot = PixelRect(x: (i % 2) * 320, y: (i / 2) * 180, width: 320, height: 180)
            slots.append(try VideoScaler(filter: .box).scale(source.render(frameIndex: 100 * i + 3), into: canvas, at: slot, mode: .fit))
        }
        let composite = canvas.finish()
        for (i, slot) in slots.enumerated() {
            #expect(TestPatternSource.readFrameCounter(from: composite, in: slot) == 100 * i + 3)
            let seen = TestPatternSource.readColor(from: composite, in: slot)
            #expect(seen.distance(to: sources[i].color) < 6, "slot \(i): \(seen) vs \(sources[i].color)")
        }
    }

    @Test func noStripMeansNoCounter() {
        #expect(TestPatternSource.readFrameCounter(from: ImageTestSupport.solid(width: 320, height: 240, .grey)) == nil)
        #expect(TestPatternSource.readFrameCounter(from: ImageTestSupport.gradient(width: 320, height: 240)) == nil)
        #expect(TestPatternSource.readFrameCounter(from: NoisePatternSource(width: 320, height: 240, seed: 5).render(frameIndex: 0)) == nil)
        // A rectangle outside the frame is not read.
        let frame = TestPatternSource(width: 64, height: 64, colorIndex: 0).render(frameIndex: 1)
        #expect(TestPatternSource.readFrameCounter(from: frame, in: PixelRect(x: 32, y: 32, width: 64, height: 64)) == nil)
    }

    @Test func steadyStateReusesPoolStorage() {
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 0, poolCapacity: 2)
        for _ in 0..<30 { _ = source.next() }
        #expect(source.pool.allocatedCount == 1)
        #expect(source.pool.overflowCount == 0)
    }

    /// Encodes 30 frames with libvpx VP8 at 300 kbps through ffmpeg, decodes them, and
    /// reads every counter back, at full size and at a quarter of the area.
    @Test func counterSurvivesVP8At300kbps() throws {
        let dir = try ImageTestSupport.temporaryDirectory("vp8")
        defer { try? FileManager.default.removeItem(at: dir) }
        var source = TestPatternSource(width: 320, height: 240, colorIndex: 3, seed: 11)
        let frames = (0..<30).map { _ in source.next() }
        let input = dir.appendingPathComponent("in.y4m"), ivf = dir.appendingPathComponent("out.ivf")
        let output = dir.appendingPathComponent("out.y4m")
        try ImageTestSupport.y4m(frames, fps: 30).write(to: input)
        #expect(try ImageTestSupport.ffmpeg(["-i", input.path, "-c:v", "libvpx", "-b:v", "300k",
                                             "-deadline", "realtime", "-cpu-used", "8", ivf.path]) == 0)
        #expect(try ImageTestSupport.ffmpeg(["-i", ivf.path, "-pix_fmt", "yuv420p", output.path]) == 0)
        let decoded = try #require(ImageTestSupport.parseY4M(Data(contentsOf: output)))
        #expect(decoded.count == 30)
        let pool = FramePool(width: 160, height: 120)
        for (n, frame) in decoded.enumerated() {
            #expect(TestPatternSource.readFrameCounter(from: frame) == n, "decoded frame \(n)")
            let small = try VideoScaler(filter: .bilinear).scaled(frame, using: pool)
            #expect(TestPatternSource.readFrameCounter(from: small) == n, "decoded, scaled frame \(n)")
            #expect(TestPatternSource.readColor(from: frame, in: PixelRect(width: 320, height: 240)).distance(to: source.color) < 10)
        }
    }

    static func differingPixels(_ a: VideoFrame, _ b: VideoFrame, in rect: PixelRect) -> Int {
        var n = 0
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX where a.y[x, y] != b.y[x, y] { n += 1 } }
        return n
    }

    static func count(_ frame: VideoFrame, in rect: PixelRect, value: UInt8) -> Int {
        var n = 0
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX where frame.y[x, y] == value { n += 1 } }
        return n
    }
}
