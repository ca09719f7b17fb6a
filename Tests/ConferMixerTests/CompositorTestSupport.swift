import Testing
import ConferMedia
import ConferMixer

/// A meeting of synthetic participants: each sends a test pattern in its own colour.
struct SyntheticMeeting {
    var compositor: VideoCompositor
    var sources: [ParticipantID: TestPatternSource] = [:]

    init(count: Int, width: Int = 640, height: Int = 360,
         configuration: VideoCompositor.Configuration = .init(), layoutKind: LayoutKind = .grid()) {
        compositor = VideoCompositor(configuration: configuration, layoutKind: layoutKind)
        for i in 1...count { join(ParticipantID(UInt32(i)), width: width, height: height) }
    }

    mutating func join(_ id: ParticipantID, width: Int = 640, height: Int = 360) {
        sources[id] = TestPatternSource(width: width, height: height, colorIndex: Int(id.rawValue),
                                        seed: UInt64(id.rawValue))
        compositor.add(participant: id)
    }

    /// Sends each named participant's next frame (all when `senders` is nil) at `time`.
    mutating func send(at time: Timestamp, from senders: [ParticipantID]? = nil) {
        for id in senders ?? compositor.members {
            guard let frame = sources[id]?.next() else { continue }
            compositor.update(participant: id, frame: frame, at: time)
        }
    }

    /// Where `id`'s picture lies in its slot, for a picture of its source's size.
    func pictureRect(of id: ParticipantID) -> PixelRect? {
        guard let slot = compositor.slotRect(of: id), let source = sources[id] else { return nil }
        let mode = compositor.placedSlots.first { $0.participant == id }?.mode ?? .fit
        return FitFill.rects(sourceWidth: source.width, sourceHeight: source.height, target: slot, mode: mode).destination
    }
}

/// The colour of one pixel of `frame`.
func pixel(_ frame: VideoFrame, _ x: Int, _ y: Int) -> YUVColor {
    YUVColor(y: frame.y[x, y], u: frame.u[x / 2, y / 2], v: frame.v[x / 2, y / 2])
}

/// The mean colour of `rect` of `frame`.
func meanColor(_ frame: VideoFrame, _ rect: PixelRect) -> YUVColor {
    var sums = (0, 0, 0)
    for y in rect.y..<rect.maxY {
        for x in rect.x..<rect.maxX {
            let p = pixel(frame, x, y)
            sums.0 += Int(p.y); sums.1 += Int(p.u); sums.2 += Int(p.v)
        }
    }
    let n = rect.width * rect.height
    return YUVColor(y: UInt8(sums.0 / n), u: UInt8(sums.1 / n), v: UInt8(sums.2 / n))
}

/// Whether every pixel of `rect` of `frame` is exactly `color`.
func isFlat(_ frame: VideoFrame, _ rect: PixelRect, _ color: YUVColor) -> Bool {
    for y in rect.y..<rect.maxY {
        for x in rect.x..<rect.maxX where pixel(frame, x, y) != color { return false }
    }
    return true
}
