import Testing
import ConferMedia
@testable import ConferMixer

@Suite struct LayoutGeometryTests {
    static let canvases = [(1280, 720), (640, 360), (1920, 1080), (854, 480)]

    @Test func gridShapeFollowsMemberCount() {
        let expected: [(ClosedRange<Int>, Int, Int)] = [
            (1...1, 1, 1), (2...2, 2, 1), (3...4, 2, 2), (5...6, 3, 2), (7...9, 3, 3),
            (10...16, 4, 4), (17...25, 5, 5), (26...36, 6, 6), (37...49, 7, 7),
        ]
        for (counts, columns, rows) in expected {
            for n in counts {
                let shape = VideoLayout.gridShape(count: n)
                #expect(shape.columns == columns && shape.rows == rows, "\(n) members")
            }
        }
        #expect(VideoLayout.gridShape(count: 0) == (0, 0))
    }

    @Test(arguments: 1...30)
    func gridTilesWithoutOverlap(members n: Int) {
        for (width, height) in Self.canvases {
            let rects = VideoLayout.grid(count: n).pixelRects(width: width, height: height)
            #expect(rects.count == n)
            Self.expectWellFormed(rects, width: width, height: height, disjoint: true, "grid \(n) on \(width)×\(height)")
            // All cells are one size, give or take the 2 pixels of even rounding.
            let widths = rects.map(\.width), heights = rects.map(\.height)
            #expect(widths.max()! - widths.min()! <= 2 && heights.max()! - heights.min()! <= 2, "\(n): \(rects)")
            let (columns, rows) = VideoLayout.gridShape(count: n)
            #expect(abs(widths[0] - width / columns) <= 2 && abs(heights[0] - height / rows) <= 2)
        }
    }

    @Test func fullGridsCoverTheWholeCanvas() {
        for n in [1, 2, 4, 6, 9, 16, 25, 36] {
            for (width, height) in Self.canvases {
                let rects = VideoLayout.grid(count: n).pixelRects(width: width, height: height)
                let area = rects.reduce(0) { $0 + $1.width * $1.height }
                #expect(area == width * height, "grid \(n) on \(width)×\(height)")
                #expect(CanvasCoverage.uncovered(PixelRect(width: width, height: height), by: rects).isEmpty)
            }
        }
    }

    @Test func twoSitSideBySideAndThreeCentreTheLastRow() {
        #expect(VideoLayout.grid(count: 2).pixelRects(width: 1280, height: 720) == [
            PixelRect(x: 0, y: 0, width: 640, height: 720), PixelRect(x: 640, y: 0, width: 640, height: 720),
        ])
        #expect(VideoLayout.grid(count: 3).pixelRects(width: 1280, height: 720) == [
            PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 640, y: 0, width: 640, height: 360),
            PixelRect(x: 320, y: 360, width: 640, height: 360),
        ])
        let five = VideoLayout.grid(count: 5).pixelRects(width: 1280, height: 720)
        // Three above; two below, centred half a cell in (426.67 → 426 px).
        #expect(five.map(\.y) == [0, 0, 0, 360, 360])
        #expect(five[3].x == 214 && five[4].x == 640)
    }

    @Test func tenMembersUseThreeCentredRowsOfAFourByFourGrid() {
        let rects = VideoLayout.grid(count: 10).pixelRects(width: 1280, height: 720)
        #expect(rects.allSatisfy { $0.width == 320 && $0.height == 180 })
        #expect(Set(rects.map(\.y)) == [90, 270, 450])
        #expect(rects[8].x == 320 && rects[9].x == 640)
    }

    @Test(arguments: 1...30)
    func activeSpeakerPutsTheSpeakerAboveAFilmstrip(members n: Int) {
        let ids = (1...n).map { ParticipantID(UInt32($0)) }
        let layout = VideoLayout.activeSpeaker(ids[n - 1], others: Array(ids.dropLast()), thumbnails: 5)
        #expect(layout.slots.count == min(n, 6))
        #expect(layout.slots[0].participant == ids[n - 1])
        for (width, height) in Self.canvases {
            let rects = layout.pixelRects(width: width, height: height)
            Self.expectWellFormed(rects, width: width, height: height, disjoint: true, "speaker \(n)")
            #expect(rects[0].width == width && rects[0].height >= height * 4 / 5 - 2)
            for thumbnail in rects.dropFirst() {
                #expect(thumbnail.maxY == height && abs(thumbnail.width - width / 5) <= 2)
            }
        }
    }

    @Test func filmstripIsCentred() {
        let layout = VideoLayout.activeSpeaker(3, others: [1, 2, 4], thumbnails: 5)
        #expect(layout.pixelRects(width: 1280, height: 720) == [
            PixelRect(x: 0, y: 0, width: 1280, height: 576),
            PixelRect(x: 256, y: 576, width: 256, height: 144),
            PixelRect(x: 512, y: 576, width: 256, height: 144),
            PixelRect(x: 768, y: 576, width: 256, height: 144),
        ])
    }

    @Test(arguments: VideoLayout.Corner.allCases)
    func pictureInPictureInsetSitsOnTopInItsCorner(corner: VideoLayout.Corner) {
        let layout = VideoLayout.pictureInPicture(main: 1, inset: 2, corner: corner)
        let rects = layout.pixelRects(width: 1280, height: 720)
        #expect(rects[0] == PixelRect(width: 1280, height: 720))
        #expect(rects[1].width == 320 && rects[1].height == 180)
        #expect(layout.slots[1].z > layout.slots[0].z)
        let left = corner == .topLeft || corner == .bottomLeft, top = corner == .topLeft || corner == .topRight
        #expect(left ? rects[1].x == 26 : rects[1].maxX == 1254)
        #expect(top ? rects[1].y == 14 : rects[1].maxY == 706)
        Self.expectWellFormed(rects, width: 1280, height: 720, disjoint: false, "pip")
    }

    @Test(arguments: 1...30)
    func presenterShowsTheScreenLeftAndCamerasInAColumn(members n: Int) {
        let ids = (1...n).map { ParticipantID(UInt32($0)) }
        let layout = VideoLayout.presenter(ids[0], cameras: Array(ids.dropFirst()))
        #expect(layout.slots.count == min(n, 5))
        for (width, height) in Self.canvases {
            let rects = layout.pixelRects(width: width, height: height)
            Self.expectWellFormed(rects, width: width, height: height, disjoint: true, "presenter \(n)")
            #expect(rects[0].height == height && abs(rects[0].width - width * 3 / 4) <= 2)
            for camera in rects.dropFirst() { #expect(camera.x == rects[0].maxX && camera.maxX == width) }
        }
        let twoCameras = VideoLayout.presenter(1, cameras: [2, 3]).pixelRects(width: 1280, height: 720)
        #expect(twoCameras.dropFirst().map(\.y) == [180, 360])
    }

    @Test func fitLetterboxesAndFillCropsAtTheSourceAspect() throws {
        // A 640×360 picture in a 400×400 slot.
        let layout = try VideoLayout(slots: [
            .init(x: 0, y: 0, width: 0.5, height: 1, mode: .fit), .init(x: 0.5, y: 0, width: 0.5, height: 1, mode: .fill),
        ])
        let rects = layout.pixelRects(width: 800, height: 400)
        #expect(rects == [PixelRect(x: 0, y: 0, width: 400, height: 400), PixelRect(x: 400, y: 0, width: 400, height: 400)])
        let fit = FitFill.rects(sourceWidth: 640, sourceHeight: 360, target: rects[0], mode: .fit)
        #expect(fit.destination.width == 400 && [224, 226].contains(fit.destination.height))
        #expect(abs(fit.destination.y + fit.destination.height / 2 - 200) <= 2)
        let fill = FitFill.rects(sourceWidth: 640, sourceHeight: 360, target: rects[1], mode: .fill)
        #expect(fill.destination == rects[1])
        #expect(fill.source == PixelRect(x: 140, y: 0, width: 360, height: 360))
        // Aspect ratios kept within a pixel.
        #expect(abs(Double(fit.destination.height) - 400 * 360 / 640) <= 1)
        #expect(abs(Double(fill.source.width) - 360) <= 1)
    }

    @Test func kindsBindMembersAndFollowTheSpeaker() {
        let members: [ParticipantID] = [1, 2, 3, 4]
        #expect(LayoutKind.grid().layout(members: members, featured: nil).boundParticipants == members)
        let speaker = LayoutKind.activeSpeaker().layout(members: members, featured: 3)
        #expect(speaker.boundParticipants == [3, 1, 2, 4])
        #expect(LayoutKind.activeSpeaker().layout(members: members, featured: 9).boundParticipants.first == 1)
        #expect(LayoutKind.pictureInPicture().layout(members: members, featured: 2).boundParticipants == [2, 1])
        #expect(LayoutKind.presenter(4).layout(members: members, featured: nil).boundParticipants == [4, 1, 2, 3])
        #expect(LayoutKind.grid().layout(members: [], featured: nil).slots.isEmpty)
    }

    @Test func builtInLayoutsPassValidation() throws {
        for n in 1...30 {
            let ids = (1...n).map { ParticipantID(UInt32($0)) }
            for layout in [VideoLayout.grid(ids), .activeSpeaker(1, others: Array(ids.dropFirst())),
                           .pictureInPicture(main: 1, inset: 2), .presenter(1, cameras: Array(ids.dropFirst()))] {
                #expect(try VideoLayout(slots: layout.slots) == layout)
            }
        }
    }

    @Test func coverageSubtractsSlotsOnce() {
        let canvas = PixelRect(width: 100, height: 100)
        let left = CanvasCoverage.uncovered(canvas, by: [PixelRect(x: 20, y: 20, width: 60, height: 60)])
        #expect(left.reduce(0) { $0 + $1.width * $1.height } == 100 * 100 - 60 * 60)
        #expect(CanvasCoverage.anyOverlap(left) == false)
        #expect(CanvasCoverage.anyOverlap([PixelRect(width: 10, height: 10), PixelRect(x: 9, y: 9, width: 2, height: 2)]))
    }

    /// Inside the canvas, non-empty, on even pixels (odd sizes only at the canvas edge) and,
    /// when `disjoint`, pairwise non-overlapping.
    static func expectWellFormed(_ rects: [PixelRect], width: Int, height: Int, disjoint: Bool, _ what: String) {
        let canvas = PixelRect(width: width, height: height)
        for rect in rects {
            #expect(!rect.isEmpty && canvas.contains(rect) && rect.isChromaAligned, "\(what): \(rect)")
            #expect(rect.maxX == width || rect.maxX % 2 == 0, "\(what): \(rect)")
            #expect(rect.maxY == height || rect.maxY % 2 == 0, "\(what): \(rect)")
        }
        if disjoint { #expect(!CanvasCoverage.anyOverlap(rects), "\(what) overlaps: \(rects)") }
    }
}
