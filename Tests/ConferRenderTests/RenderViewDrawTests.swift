import ConferMedia
import Testing
@testable import ConferRender

@Suite struct RenderViewDrawTests {
    static let red = YUVColor(red: 255, green: 0, blue: 0)

    static func isRed(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
        p.r >= 250 && p.g <= 6 && p.b <= 6 && p.a == 255
    }

    static func isBlack(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Bool {
        p.r == 0 && p.g == 0 && p.b == 0 && p.a == 255
    }

    @Test func fitLetterboxesAWidePictureWithBlackBars() throws {
        var view = try RenderView(id: 1, stream: 1, width: 400, height: 400, mode: .fit)
        let rect = try view.draw(PacerHarness.solid(Self.red, width: 640, height: 360))
        // 400 × 360 / 640 = 225, rounded to the even 226 and centred on an even row.
        #expect(rect == PixelRect(x: 0, y: 86, width: 400, height: 226))
        let image = view.image
        for y in [0, 40, 85, 312, 350, 399] {
            for x in [0, 200, 399] { #expect(Self.isBlack(image[x, y]), "bar at \(x),\(y): \(image[x, y])") }
        }
        for y in [86, 150, 200, 250, 311] {
            for x in [0, 200, 399] { #expect(Self.isRed(image[x, y]), "picture at \(x),\(y): \(image[x, y])") }
        }
        let redRows = (0..<400).filter { Self.isRed(image[200, $0]) }.count
        #expect(redRows == 226)
    }

    @Test func fillCoversTheWholeView() throws {
        var view = try RenderView(id: 1, stream: 1, width: 400, height: 400, mode: .fill)
        let rect = try view.draw(PacerHarness.solid(Self.red, width: 640, height: 360))
        #expect(rect == PixelRect(width: 400, height: 400))
        let image = view.image
        for y in Swift.stride(from: 0, to: 400, by: 21) {
            for x in Swift.stride(from: 0, to: 400, by: 19) { #expect(Self.isRed(image[x, y]), "at \(x),\(y)") }
        }
        #expect(Self.isRed(image[399, 399]))
    }

    @Test func barsAreRepaintedWhenThePictureMoves() throws {
        var view = try RenderView(id: 1, stream: 1, width: 400, height: 400, mode: .fill)
        try view.draw(PacerHarness.solid(Self.red, width: 640, height: 360))
        view.mode = .fit
        try view.draw(PacerHarness.solid(Self.red, width: 640, height: 360))
        #expect(Self.isBlack(view.image[200, 10]), "old fill picture must not show through the new bar")
        // A portrait source pillarboxes: bars left and right.
        try view.draw(PacerHarness.solid(Self.red, width: 180, height: 320))
        let rect = try #require(view.contentRect)
        #expect(rect.height == 400 && rect.width == 226)
        #expect(Self.isBlack(view.image[10, 200]) && Self.isBlack(view.image[390, 200]))
        #expect(Self.isRed(view.image[200, 10]) && Self.isRed(view.image[200, 390]))
    }

    @Test func aFrameOfTheViewsSizeIsConvertedWithoutScaling() throws {
        var view = try RenderView(id: 1, stream: 1, width: 32, height: 18)
        let rect = try view.draw(PacerHarness.solid(Self.red))
        #expect(rect == PixelRect(width: 32, height: 18))
        #expect(Self.isRed(view.image[31, 17]))
    }

    @Test func theNewestOfSeveralFramesIsTheOneDrawn() throws {
        let pacer = try FramePacer()
        try pacer.add(RenderView(id: 1, stream: 9, width: 32, height: 18))
        pacer.submit(stream: 9, frame: PacerHarness.solid(Self.red))
        pacer.submit(stream: 9, frame: PacerHarness.solid(YUVColor(red: 0, green: 255, blue: 0)))
        pacer.submit(stream: 9, frame: PacerHarness.solid(YUVColor(red: 0, green: 0, blue: 255)))
        let result = pacer.refresh(at: .zero)
        #expect(result.drawn == [1])
        let pixel = try #require(pacer.view(1)).image[16, 9]
        #expect(pixel.b >= 250 && pixel.r <= 6 && pixel.g <= 6, "\(pixel)")
        let stats = try #require(pacer.statistics().views.first)
        #expect(stats.dropped.superseded == 2 && stats.framesDrawn == 1 && stats.framesReceived == 3)
        #expect(pacer.refresh(at: .milliseconds(17)).drawn.isEmpty, "nothing new to draw")
    }

    @Test func drawnAndDroppedFramesGoBackToTheirPool() throws {
        let pacer = try FramePacer()
        for i in 0..<8 { try pacer.add(RenderView(id: ViewID(i), stream: StreamID(UInt64(i)), width: 64, height: 36)) }
        let pool = FramePool(width: 32, height: 18, capacity: 10)
        for tick in Int64(0)..<120 {
            for s in 0..<8 {
                let frame = pool.makeFrame()
                frame.fill(with: .white)
                pacer.submit(stream: StreamID(UInt64(s)), frame: frame.finish())
            }
            pacer.refresh(at: pacer.schedule.deadline(ofTick: tick))
        }
        // Eight views hold at most eight frames; the ninth and tenth buffers cover the one
        // being made. Anything retained longer would overflow the pool.
        #expect(pool.overflowCount == 0)
        #expect(pool.allocatedCount <= 9)
    }
}
