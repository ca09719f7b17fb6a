import Testing
import Dispatch
import ConferMedia
import ConferMixer

@Suite struct CompositorPixelTests {
    static let frameTime = TimeDelta.frameInterval(fps: 30)

    /// Every participant's colour is in its own slot and its counter reads `frame`.
    static func expectEveryoneShown(_ meeting: SyntheticMeeting, in canvas: VideoFrame, frame: Int,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        for id in meeting.compositor.members {
            guard let rect = meeting.pictureRect(of: id) else {
                Issue.record("\(id) has no slot", sourceLocation: sourceLocation)
                continue
            }
            let color = TestPatternSource.readColor(from: canvas, in: rect)
            let own = TestPalette.color(at: Int(id.rawValue))
            #expect(color.distance(to: own) < 8, "\(id) at \(rect): \(color) vs \(own)", sourceLocation: sourceLocation)
            for other in meeting.compositor.members where other != id {
                #expect(color.distance(to: TestPalette.color(at: Int(other.rawValue))) > 30, sourceLocation: sourceLocation)
            }
            #expect(TestPatternSource.readFrameCounter(from: canvas, in: rect) == frame, "\(id) at \(rect)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func gridShowsEveryColourAndCounterFrameByFrame() {
        var meeting = SyntheticMeeting(count: 4)
        for frame in 0..<6 {
            let time = Timestamp.zero + Self.frameTime * Int64(frame)
            meeting.send(at: time)
            let canvas = meeting.compositor.compose(at: time)
            #expect(canvas.width == 1280 && canvas.height == 720 && canvas.timestamp == time)
            Self.expectEveryoneShown(meeting, in: canvas, frame: frame)
        }
        // 640×360 pictures in 640×360 cells are copied, never resized.
        #expect(meeting.compositor.statistics.copiedSlots == 24 && meeting.compositor.statistics.scaledSlots == 0)
        #expect(meeting.compositor.placedSlots.map(\.rect) == [
            PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 640, y: 0, width: 640, height: 360),
            PixelRect(x: 0, y: 360, width: 640, height: 360), PixelRect(x: 640, y: 360, width: 640, height: 360),
        ])
    }

    @Test(arguments: [9, 16])
    func largeGridsShowEveryone(count: Int) {
        var meeting = SyntheticMeeting(count: count)
        for frame in 0..<3 {
            let time = Timestamp.zero + Self.frameTime * Int64(frame)
            meeting.send(at: time)
            Self.expectEveryoneShown(meeting, in: meeting.compositor.compose(at: time), frame: frame)
        }
        #expect(meeting.compositor.statistics.scaledSlots == 3 * count)
    }

    @Test func speakerBorderSurroundsOnlyTheSpeaker() {
        var meeting = SyntheticMeeting(count: 4)
        meeting.send(at: .zero)
        meeting.compositor.setSpeaking(3)
        let canvas = meeting.compositor.compose(at: .zero)
        let highlight = meeting.compositor.configuration.highlightColor
        for slot in meeting.compositor.placedSlots {
            let r = slot.rect
            let edges = [PixelRect(x: r.x, y: r.y, width: r.width, height: 4),
                         PixelRect(x: r.x, y: r.maxY - 4, width: r.width, height: 4),
                         PixelRect(x: r.x, y: r.y, width: 4, height: r.height),
                         PixelRect(x: r.maxX - 4, y: r.y, width: 4, height: r.height)]
            let inner = PixelRect(x: r.x + 4, y: r.y + 4, width: r.width - 8, height: r.height - 8)
            if slot.participant == 3 {
                #expect(edges.allSatisfy { isFlat(canvas, $0, highlight) })
                // Only 4 pixels: the picture starts right inside.
                #expect(pixel(canvas, inner.x, inner.y + inner.height / 2) != highlight)
            } else {
                #expect(edges.allSatisfy { edge in pixel(canvas, edge.x + 1, edge.y + 1) != highlight }, "\(slot)")
            }
        }
        // Nobody speaking: no border anywhere.
        meeting.compositor.setSpeaking(nil)
        let plain = meeting.compositor.compose(at: .zero)
        let r = meeting.compositor.slotRect(of: 3)!
        #expect(pixel(plain, r.x, r.y) != highlight && pixel(plain, r.maxX - 1, r.maxY - 1) != highlight)
    }

    @Test func silentParticipantTurnsIntoAPlaceholderWhileOthersAdvance() {
        var meeting = SyntheticMeeting(count: 3)
        let placeholder = meeting.compositor.configuration.placeholderColor
        var shown: [ParticipantID: Int] = [:]
        for frame in 0..<45 {
            let time = Timestamp.zero + Self.frameTime * Int64(frame)
            // Participant 2 stops after its frame 5 (at 0.167 s); the timeout is 1 s.
            meeting.send(at: time, from: frame <= 5 ? nil : [1, 3])
            let canvas = meeting.compositor.compose(at: time)
            for id in meeting.compositor.members {
                let rect = meeting.pictureRect(of: id)!
                shown[id] = TestPatternSource.readFrameCounter(from: canvas, in: rect)
            }
            #expect(shown[1] == frame && shown[3] == frame)
            let slot = meeting.compositor.slotRect(of: 2)!
            if time - (Timestamp.zero + Self.frameTime * 5) >= .seconds(1) {
                #expect(isFlat(canvas, slot, placeholder), "frame \(frame)")
            } else {
                #expect(shown[2] == min(frame, 5), "frame \(frame): a frozen picture until the timeout")
            }
        }
        // Sending again brings the picture back at once.
        meeting.send(at: .seconds(2))
        let canvas = meeting.compositor.compose(at: .seconds(2))
        #expect(TestPatternSource.readFrameCounter(from: canvas, in: meeting.pictureRect(of: 2)!) == 6)
    }

    @Test func mutedParticipantShowsThePlaceholderUntilItsNextFrame() {
        var meeting = SyntheticMeeting(count: 2)
        let placeholder = meeting.compositor.configuration.placeholderColor
        meeting.send(at: .zero)
        meeting.compositor.setVideoMuted(participant: 1, true)
        #expect(meeting.compositor.isVideoMuted(1))
        meeting.send(at: .milliseconds(33))
        var canvas = meeting.compositor.compose(at: .milliseconds(33))
        #expect(isFlat(canvas, meeting.compositor.slotRect(of: 1)!, placeholder))
        #expect(TestPatternSource.readFrameCounter(from: canvas, in: meeting.pictureRect(of: 2)!) == 1)
        meeting.compositor.setVideoMuted(participant: 1, false)
        canvas = meeting.compositor.compose(at: .milliseconds(40))
        #expect(isFlat(canvas, meeting.compositor.slotRect(of: 1)!, placeholder), "no stale picture after unmute")
        meeting.send(at: .milliseconds(66))
        canvas = meeting.compositor.compose(at: .milliseconds(66))
        #expect(TestPatternSource.readFrameCounter(from: canvas, in: meeting.pictureRect(of: 1)!) == 2)
    }

    @Test func removingAParticipantRelaysTheGridOut() {
        var meeting = SyntheticMeeting(count: 4)
        meeting.send(at: .zero)
        _ = meeting.compositor.compose(at: .zero)
        meeting.compositor.setSpeaking(2)
        meeting.compositor.remove(participant: 2)
        meeting.sources[2] = nil
        #expect(meeting.compositor.members == [1, 3, 4])
        #expect(meeting.compositor.speaker == nil && meeting.compositor.featured == nil)
        meeting.compositor.remove(participant: 2)
        #expect(meeting.compositor.members == [1, 3, 4])
        meeting.send(at: .milliseconds(33))
        let canvas = meeting.compositor.compose(at: .milliseconds(33))
        #expect(meeting.compositor.slotRect(of: 4) == PixelRect(x: 320, y: 360, width: 640, height: 360))
        Self.expectEveryoneShown(meeting, in: canvas, frame: 1)
        // The corners beside the centred last row show the background, though the pooled
        // canvas held participant 3's picture there a frame ago.
        let background = meeting.compositor.configuration.backgroundColor
        #expect(isFlat(canvas, PixelRect(x: 0, y: 360, width: 320, height: 360), background))
        #expect(isFlat(canvas, PixelRect(x: 960, y: 360, width: 320, height: 360), background))
    }

    @Test func fitLetterboxesAndFillCrops() throws {
        // A source whose outer 140-pixel columns are red and blue, the middle green: a 400×400
        // fill slot shows the middle only, a fit slot the whole with bars above and below.
        let source = MutableVideoFrame(layout: FrameLayout(width: 640, height: 360))
        let (red, green, blue) = (YUVColor(red: 255, green: 0, blue: 0), YUVColor(red: 0, green: 255, blue: 0),
                                  YUVColor(red: 0, green: 0, blue: 255))
        source.fill(with: green)
        source.fill(PixelRect(x: 0, y: 0, width: 140, height: 360), with: red)
        source.fill(PixelRect(x: 500, y: 0, width: 140, height: 360), with: blue)
        let frame = source.finish()
        let layout = try VideoLayout(slots: [.init(x: 0, y: 0, width: 0.5, height: 1, mode: .fit),
                                             .init(x: 0.5, y: 0, width: 0.5, height: 1, mode: .fill)])
        var compositor = VideoCompositor(configuration: .init(width: 800, height: 400), layoutKind: .custom(layout))
        compositor.update(participant: 1, frame: frame, at: .zero)
        compositor.update(participant: 2, frame: frame, at: .zero)
        let canvas = compositor.compose(at: .zero)
        let black = YUVColor.black
        // Fit: 400×226 at y 86, bars above and below; red on the left, blue on the right.
        #expect(isFlat(canvas, PixelRect(x: 0, y: 0, width: 400, height: 86), black))
        #expect(isFlat(canvas, PixelRect(x: 0, y: 312, width: 400, height: 88), black))
        #expect(meanColor(canvas, PixelRect(x: 10, y: 150, width: 60, height: 100)).distance(to: red) < 4)
        #expect(meanColor(canvas, PixelRect(x: 330, y: 150, width: 60, height: 100)).distance(to: blue) < 4)
        // Fill: the 360×360 centre, all green, from edge to edge.
        #expect(meanColor(canvas, PixelRect(x: 400, y: 0, width: 8, height: 400)).distance(to: green) < 4)
        #expect(meanColor(canvas, PixelRect(x: 792, y: 0, width: 8, height: 400)).distance(to: green) < 4)
    }

    @Test func aParticipantChangingSizeJustScalesDifferently() {
        var compositor = VideoCompositor()
        var big = TestPatternSource(width: 640, height: 360, colorIndex: 5)
        var small = TestPatternSource(width: 320, height: 180, colorIndex: 5, startFrame: 1)
        var odd = TestPatternSource(width: 642, height: 482, colorIndex: 5, startFrame: 2)
        compositor.add(participant: 9)
        compositor.add(participant: 8)
        for (n, frame) in [big.next(), small.next(), odd.next()].enumerated() {
            compositor.update(participant: 1, frame: frame, at: .milliseconds(Int64(n) * 33))
            let canvas = compositor.compose(at: .milliseconds(Int64(n) * 33))
            let slot = compositor.slotRect(of: 1)!
            let rect = FitFill.rects(sourceWidth: frame.width, sourceHeight: frame.height, target: slot, mode: .fit).destination
            #expect(TestPatternSource.readFrameCounter(from: canvas, in: rect) == n)
            #expect(TestPatternSource.readColor(from: canvas, in: rect).distance(to: TestPalette.color(at: 5)) < 8)
        }
    }

    @Test func activeSpeakerAndPictureInPictureFollowTheSpeaker() {
        var meeting = SyntheticMeeting(count: 4, layoutKind: .activeSpeaker())
        #expect(meeting.compositor.slotRect(of: 1)?.width == 1280)
        meeting.compositor.setSpeaking(3)
        #expect(meeting.compositor.slotRect(of: 3) == PixelRect(x: 0, y: 0, width: 1280, height: 576))
        meeting.compositor.setSpeaking(nil)
        #expect(meeting.compositor.featured == 3 && meeting.compositor.slotRect(of: 3)?.width == 1280)
        meeting.send(at: .zero)
        Self.expectEveryoneShown(meeting, in: meeting.compositor.compose(at: .zero), frame: 0)

        // Top left, so the inset covers neither the speaker's counter strip nor colour probe.
        meeting.compositor.layoutKind = .pictureInPicture(corner: .topLeft)
        #expect(meeting.compositor.slotsOverlap)
        meeting.send(at: .milliseconds(33))
        let canvas = meeting.compositor.compose(at: .milliseconds(33))
        // The inset (participant 1, first of the others) is drawn over the speaker.
        let inset = meeting.pictureRect(of: 1)!
        #expect(TestPatternSource.readColor(from: canvas, in: inset).distance(to: TestPalette.color(at: 1)) < 8)
        #expect(TestPatternSource.readFrameCounter(from: canvas, in: inset) == 1)
        #expect(TestPatternSource.readFrameCounter(from: canvas, in: meeting.pictureRect(of: 3)!) == 1)
        #expect(meeting.compositor.slotRect(of: 2) == nil)
    }

    @Test func steadyStateComposingAllocatesNoFrames() {
        var meeting = SyntheticMeeting(count: 5)
        var held: VideoFrame?
        for frame in 0..<100 {
            let time = Timestamp.zero + Self.frameTime * Int64(frame)
            meeting.send(at: time)
            // An encoder holds the previous canvas while the next is composed.
            held = meeting.compositor.compose(at: time)
        }
        #expect(held != nil)
        #expect(meeting.compositor.pool.allocatedCount == 2)
        #expect(meeting.compositor.pool.overflowCount == 0)
        #expect(meeting.compositor.statistics.composedFrames == 100)
    }

    @Test func slotsDrawnOnTwoThreadsMatchSequentialComposing() {
        var meeting = SyntheticMeeting(count: 7)
        meeting.compositor.setSpeaking(5)
        meeting.send(at: .zero)
        var parallel = meeting.compositor
        let expected = meeting.compositor.compose(at: .zero)

        #expect(!parallel.slotsOverlap)
        for lanes in [2, 3] {
            let composed = parallel.compose(at: .zero, lanes: lanes)
            let same = (0..<720).allSatisfy { y in expected.y.row(y).elementsEqual(composed.y.row(y)) }
                && (0..<360).allSatisfy { y in
                    expected.u.row(y).elementsEqual(composed.u.row(y)) && expected.v.row(y).elementsEqual(composed.v.row(y))
                }
            #expect(same, "\(lanes) lanes")
        }
        #expect(parallel.statistics.scaledSlots == 2 * 7 && parallel.statistics.composedFrames == 2)
    }

    @Test func unboundSlotsAndEmptyMeetingsShowTheBackground() throws {
        let background = YUVColor(y: 60, u: 100, v: 150)
        var empty = VideoCompositor(configuration: .init(width: 320, height: 180, backgroundColor: background))
        #expect(isFlat(empty.compose(at: .zero), PixelRect(width: 320, height: 180), background))

        let layout = try VideoLayout(slots: [.init(x: 0, y: 0, width: 0.5, height: 1), .init(x: 0.5, y: 0, width: 0.5, height: 1)])
        var compositor = VideoCompositor(configuration: .init(width: 320, height: 180, backgroundColor: background),
                                         layoutKind: .custom(layout))
        compositor.add(participant: 4)
        let canvas = compositor.compose(at: .zero)
        #expect(isFlat(canvas, PixelRect(x: 0, y: 0, width: 160, height: 180), compositor.configuration.placeholderColor))
        #expect(isFlat(canvas, PixelRect(x: 160, y: 0, width: 160, height: 180), background))
    }
}

/// Fit or fill per participant, chosen by whoever renders, over the layout's choice.
@Suite struct CompositorModeOverrideTests {
    @Test func aFillOverrideCropsFromTheNextFrameAndNilGoesBack() throws {
        // Square pictures in cells that are not square: fit leaves bars, fill covers the cell.
        var meeting = SyntheticMeeting(count: 2, width: 360, height: 360)
        let background = meeting.compositor.configuration.backgroundColor
        meeting.send(at: .zero)
        var canvas = meeting.compositor.compose(at: .zero)
        let slot = try #require(meeting.compositor.slotRect(of: 1))
        #expect(slot.width != slot.height)
        let fitted = FitFill.rects(sourceWidth: 360, sourceHeight: 360, target: slot, mode: .fit).destination
        // A point inside the cell but outside the letterboxed picture: on a bar.
        let bar = fitted.x > slot.x ? (slot.x + 2, slot.y + slot.height / 2) : (slot.x + slot.width / 2, slot.y + 2)
        #expect(pixel(canvas, bar.0, bar.1) == background, "fit: a bar")
        meeting.compositor.setMode(.fill, for: 1)
        #expect(meeting.compositor.placedSlots.first { $0.participant == 1 }?.mode == .fill)
        #expect(meeting.compositor.placedSlots.first { $0.participant == 2 }?.mode == .fit, "only the one participant")
        meeting.send(at: .milliseconds(33))
        canvas = meeting.compositor.compose(at: .milliseconds(33))
        #expect(pixel(canvas, bar.0, bar.1) != background, "fill: the picture covers the bar")
        meeting.compositor.setMode(nil, for: 1)
        #expect(meeting.compositor.placedSlots.first { $0.participant == 1 }?.mode == .fit)
    }
}
