/// A deterministic moving test picture for one synthetic participant.
///
/// Each frame shows, over the source's colour:
/// - the frame counter as five decimal digits (white on black, top left) for people;
/// - the counter as a black-and-white block strip (bottom) for machines — see
///   ``readFrameCounter(from:in:)``, which decodes it after scaling and lossy coding;
/// - a white box with a black core that moves back and forth, so encoders see motion;
/// - an area that always shows the plain colour (top right, ``colorProbeRect(in:)``).
///
/// The layout is in fractions of the picture, so a test can find every element in a
/// scaled copy of the picture (say, a participant's slot in a composite). Frames come
/// from a ``FramePool`` and times from the frame index alone: no wall clock, no
/// allocation per frame once the pool is warm.
public struct TestPatternSource: IndexedVideoSource, Sendable {
    /// The pool frames are drawn into (its size is the picture size).
    public let pool: FramePool
    /// Frames per second; frame `n` is stamped `n / frameRate` seconds.
    public let frameRate: Double
    /// The colour that fills most of the picture.
    public let color: YUVColor
    /// The index of the next frame ``next()`` returns.
    public private(set) var frameIndex: Int
    private let phase: Double
    private let speed: Double

    /// A `width` × `height` pattern at `frameRate` in `color`. `seed` sets where the moving
    /// box starts and how fast it moves, so sources side by side do not move in lockstep.
    public init(width: Int, height: Int, frameRate: Double = 30, color: YUVColor, seed: UInt64 = 0,
                startFrame: Int = 0, poolCapacity: Int = 4) {
        precondition(frameRate > 0, "a frame rate must be positive")
        pool = FramePool(width: width, height: height, capacity: poolCapacity)
        self.frameRate = frameRate
        self.color = color
        frameIndex = startFrame
        var random = SeededRandom(seed: seed)
        phase = random.nextUnit()
        speed = 0.3 + 0.4 * random.nextUnit()
    }

    /// A pattern in the colour of participant `colorIndex` (see ``TestPalette``).
    public init(width: Int, height: Int, frameRate: Double = 30, colorIndex: Int, seed: UInt64 = 0,
                startFrame: Int = 0, poolCapacity: Int = 4) {
        self.init(width: width, height: height, frameRate: frameRate, color: TestPalette.color(at: colorIndex),
                  seed: seed, startFrame: startFrame, poolCapacity: poolCapacity)
    }

    /// The next frame; its counter is ``frameIndex`` before the call.
    public mutating func next() -> VideoFrame {
        defer { frameIndex += 1 }
        return render(frameIndex: frameIndex)
    }

    /// The frame with counter `frameIndex`, without moving the source on.
    public func render(frameIndex index: Int) -> VideoFrame {
        let frame = pool.makeFrame(timestamp: timestamp(ofFrame: index))
        draw(frameIndex: index, on: frame)
        return frame.finish()
    }

    /// Draws frame `index` over the whole of `frame`.
    public func draw(frameIndex index: Int, on frame: borrowing MutableVideoFrame) {
        let picture = PixelRect(width: frame.width, height: frame.height)
        frame.fill(with: color)

        let digits = Self.digitsRect(in: picture)
        frame.fill(digits, with: .black)
        BitmapFont.drawNumber(index % 100_000, digitCount: 5, luma: YUVColor.white.y, in: digits, on: frame)

        let band = picture.fraction(x: 0, y: 0.32, width: 1, height: 0.42)
        let boxWidth = max(2, picture.width * 16 / 100) & ~1
        let travel = max(0, picture.width - boxWidth)
        // A triangle wave: the box crosses the picture in 1 / speed seconds and comes back.
        let t = (Double(index) / frameRate * speed + phase).truncatingRemainder(dividingBy: 2)
        let position = Int((Double(travel) * (t < 1 ? t : 2 - t)).rounded()) & ~1
        let box = PixelRect(x: position, y: band.y, width: boxWidth, height: band.height)
        frame.fill(box, with: .white)
        frame.fill(box.fraction(x: 0.25, y: 0.25, width: 0.5, height: 0.5), with: .black)

        FrameCounterStrip.draw(index, in: Self.counterStripRect(in: picture), on: frame)
    }

    // MARK: Reading a pattern back

    /// The counter shown by a test pattern drawn into `rect` of `frame` — the whole frame,
    /// or a scaled copy of it placed there (a composite's slot). Exact modulo 2¹⁶; nil when
    /// no readable strip is there.
    public static func readFrameCounter(from frame: VideoFrame, in rect: PixelRect) -> Int? {
        FrameCounterStrip.read(from: frame, in: counterStripRect(in: rect))
    }

    /// The counter shown by a test pattern filling all of `frame`.
    public static func readFrameCounter(from frame: VideoFrame) -> Int? {
        readFrameCounter(from: frame, in: PixelRect(width: frame.width, height: frame.height))
    }

    /// The mean colour of the plain-colour area of a pattern drawn into `rect` of `frame`.
    public static func readColor(from frame: VideoFrame, in rect: PixelRect) -> YUVColor {
        let probe = colorProbeRect(in: rect).intersection(PixelRect(width: frame.width, height: frame.height))
        guard !probe.isEmpty else { return .black }
        let chroma = PixelRect(x: probe.x / 2, y: probe.y / 2,
                               width: max(1, probe.width / 2), height: max(1, probe.height / 2))
        return frame.withPlanes { y, u, v in
            YUVColor(y: mean(y, probe), u: mean(u, chroma), v: mean(v, chroma))
        }
    }

    /// Where the decimal digits are in a pattern drawn into `rect`.
    public static func digitsRect(in rect: PixelRect) -> PixelRect {
        rect.fraction(x: 0.04, y: 0.04, width: 0.5, height: 0.22)
    }

    /// Where the counter strip is in a pattern drawn into `rect`.
    public static func counterStripRect(in rect: PixelRect) -> PixelRect {
        rect.fraction(x: 0.04, y: 0.80, width: 0.92, height: 0.16)
    }

    /// An area of a pattern drawn into `rect` that always shows the plain source colour.
    public static func colorProbeRect(in rect: PixelRect) -> PixelRect {
        rect.fraction(x: 0.62, y: 0.06, width: 0.32, height: 0.18)
    }

    private static func mean(_ plane: ImagePlane, _ rect: PixelRect) -> UInt8 {
        let r = rect.intersection(PixelRect(width: plane.width, height: plane.height))
        guard !r.isEmpty else { return 0 }
        var sum = 0
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX { sum += Int(plane[x, y]) }
        }
        return UInt8((sum + r.width * r.height / 2) / (r.width * r.height))
    }
}
