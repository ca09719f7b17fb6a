import Testing
import ConferMedia

@Suite struct FitFillTests {
    static let sizes = [(1920, 1080), (1280, 720), (640, 480), (480, 640), (320, 240), (176, 144),
                        (100, 100), (37, 91), (1080, 1920), (3, 2), (2, 3), (1, 1)]
    static let targets = [PixelRect(width: 640, height: 360), PixelRect(x: 320, y: 0, width: 320, height: 240),
                          PixelRect(x: 2, y: 4, width: 213, height: 120), PixelRect(x: 100, y: 50, width: 90, height: 160),
                          PixelRect(width: 64, height: 64), PixelRect(x: 10, y: 10, width: 1, height: 1)]

    @Test func fitKeepsAspectInsideTheTargetCentred() {
        for (w, h) in Self.sizes {
            for target in Self.targets {
                let p = FitFill.rects(sourceWidth: w, sourceHeight: h, target: target, mode: .fit)
                #expect(p.source == PixelRect(width: w, height: h))
                #expect(target.contains(p.destination), "\(w)×\(h) in \(target): \(p.destination)")
                // One dimension fills the target (give or take rounding to even).
                #expect(p.destination.width >= target.width - 1 || p.destination.height >= target.height - 1)
                // Aspect kept to within the rounding of one pixel on each side.
                let expected = Double(w) / Double(h)
                let low = Double(max(1, p.destination.width - 2)) / Double(p.destination.height + 2)
                let high = Double(p.destination.width + 2) / Double(max(1, p.destination.height - 2))
                #expect(low <= expected && expected <= high, "\(w)×\(h) in \(target): \(p.destination)")
                // Centred: the bars differ by at most 3 pixels (an odd remainder, then the offset
                // rounded down to even), and the picture starts even relative to the target.
                let left = p.destination.x - target.x, right = target.maxX - p.destination.maxX
                let top = p.destination.y - target.y, bottom = target.maxY - p.destination.maxY
                #expect(abs(left - right) <= 3 && abs(top - bottom) <= 3, "\(w)×\(h) in \(target): \(p.destination)")
                #expect(left % 2 == 0 && top % 2 == 0)
            }
        }
    }

    @Test func fillCoversTheTargetWithACentredCrop() {
        for (w, h) in Self.sizes {
            for target in Self.targets {
                let p = FitFill.rects(sourceWidth: w, sourceHeight: h, target: target, mode: .fill)
                #expect(p.destination == target)
                #expect(PixelRect(width: w, height: h).contains(p.source), "\(w)×\(h) for \(target): \(p.source)")
                #expect(p.source.isChromaAligned)
                #expect(p.source.width == w || p.source.height == h)
                let expected = Double(target.width) / Double(target.height)
                let low = Double(max(1, p.source.width - 2)) / Double(p.source.height + 2)
                let high = Double(p.source.width + 2) / Double(max(1, p.source.height - 2))
                #expect(low <= expected && expected <= high, "\(w)×\(h) for \(target): \(p.source)")
                let left = p.source.x, right = w - p.source.maxX, top = p.source.y, bottom = h - p.source.maxY
                #expect(abs(left - right) <= 3 && abs(top - bottom) <= 3, "\(w)×\(h) for \(target): \(p.source)")
            }
        }
    }

    @Test func knownPlacements() {
        // 16:9 into 4:3: letterbox top and bottom; fill crops the sides.
        let fit = FitFill.rects(sourceWidth: 1280, sourceHeight: 720, target: PixelRect(width: 640, height: 480), mode: .fit)
        #expect(fit.destination == PixelRect(x: 0, y: 60, width: 640, height: 360))
        let fill = FitFill.rects(sourceWidth: 1280, sourceHeight: 720, target: PixelRect(width: 640, height: 480), mode: .fill)
        #expect(fill.source == PixelRect(x: 160, y: 0, width: 960, height: 720))
        // Same aspect: the whole thing both ways.
        let same = FitFill.rects(sourceWidth: 320, sourceHeight: 240, target: PixelRect(x: 8, y: 8, width: 160, height: 120), mode: .fit)
        #expect(same.destination == PixelRect(x: 8, y: 8, width: 160, height: 120))
    }

    @Test func emptyInputsGiveEmptyDestinations() {
        #expect(FitFill.rects(sourceWidth: 0, sourceHeight: 10, target: PixelRect(width: 10, height: 10), mode: .fit).destination.isEmpty)
        #expect(FitFill.rects(sourceWidth: 10, sourceHeight: 10, target: PixelRect(width: 0, height: 10), mode: .fill).destination.isEmpty)
    }
}
