/// Deterministic video that is hard to encode, for honest codec benchmarks.
///
/// A seeded multi-scale noise texture (grain, 4-pixel and 16-pixel blobs) pans across the
/// picture at a seeded velocity, so motion search finds something to do, and fresh grain
/// is added to every pixel of every frame, so no frame can be predicted exactly from the
/// last. Frames come from a ``FramePool``; the texture is made once, in `init`.
public struct NoisePatternSource: IndexedVideoSource, Sendable {
    /// The pool frames are drawn into (its size is the picture size).
    public let pool: FramePool
    /// Frames per second; frame `n` is stamped `n / frameRate` seconds.
    public let frameRate: Double
    /// Peak amplitude, in luma steps, of the grain added fresh to every frame.
    public let grain: Int
    /// The index of the next frame ``next()`` returns.
    public private(set) var frameIndex = 0
    private let seed: UInt64
    private let lumaTexture: [UInt8]
    private let chromaTexture: (u: [UInt8], v: [UInt8])
    private let velocity: (x: Double, y: Double)

    /// A `width` × `height` noise source. `grain` (0–64) sets how much of each frame is new.
    public init(width: Int, height: Int, frameRate: Double = 30, seed: UInt64 = 0, grain: Int = 24,
                poolCapacity: Int = 4) {
        precondition(frameRate > 0, "a frame rate must be positive")
        pool = FramePool(width: width, height: height, capacity: poolCapacity)
        self.frameRate = frameRate
        self.grain = max(0, min(64, grain))
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let layout = pool.layout
        lumaTexture = Self.texture(width: width, height: height, mean: 126, spread: 100, random: &random)
        chromaTexture = (Self.texture(width: layout.chromaWidth, height: layout.chromaHeight, mean: 128, spread: 60, random: &random),
                         Self.texture(width: layout.chromaWidth, height: layout.chromaHeight, mean: 128, spread: 60, random: &random))
        // 1–4 pixels per frame at 30 fps, in a seeded direction: typical camera-pan speeds.
        let angle = random.nextUnit() * 2 * Double.pi
        let pixelsPerSecond = 30 * (1 + 3 * random.nextUnit())
        velocity = (pixelsPerSecond * Math.cosine(angle), pixelsPerSecond * Math.sine(angle))
    }

    /// The next frame.
    public mutating func next() -> VideoFrame {
        defer { frameIndex += 1 }
        return render(frameIndex: frameIndex)
    }

    /// Frame `index`, the same whenever it is asked for.
    public func render(frameIndex index: Int) -> VideoFrame {
        let frame = pool.makeFrame(timestamp: timestamp(ofFrame: index))
        let seconds = Double(index) / frameRate
        let dx = Int((velocity.x * seconds).rounded()), dy = Int((velocity.y * seconds).rounded())
        var random = SeededRandom(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15))
        Self.pan(lumaTexture, by: dx, dy, into: frame.y, grain: grain, random: &random)
        Self.pan(chromaTexture.u, by: dx / 2, dy / 2, into: frame.u, grain: grain / 2, random: &random)
        Self.pan(chromaTexture.v, by: dx / 2, dy / 2, into: frame.v, grain: grain / 2, random: &random)
        return frame.finish()
    }

    /// Copies the texture shifted by (`dx`, `dy`) with wrap-around, adding grain in
    /// `-grain...grain` drawn eight pixels per random word.
    private static func pan(_ texture: [UInt8], by dx: Int, _ dy: Int, into plane: MutableImagePlane,
                            grain: Int, random: inout SeededRandom) {
        let w = plane.width, h = plane.height
        let ox = ((dx % w) + w) % w, oy = ((dy % h) + h) % h
        let span = UInt64(2 * grain + 1)
        texture.withUnsafeBufferPointer { tex in
            for y in 0..<h {
                let src = tex.baseAddress! + ((y + oy) % h) * w
                let dst = plane.base + y * plane.stride
                var bits: UInt64 = 0
                for x in 0..<w {
                    if x & 7 == 0 { bits = random.next() }
                    let noise = grain == 0 ? 0 : Int((bits & 0xFF) % span) - grain
                    bits >>= 8
                    let sx = x + ox < w ? x + ox : x + ox - w
                    dst[x] = UInt8(clamping: Int(src[sx]) + noise)
                }
            }
        }
    }

    /// Noise at three scales — single pixels, 4-pixel and 16-pixel cells — so the
    /// picture has detail at every block size an encoder uses.
    private static func texture(width: Int, height: Int, mean: Int, spread: Int, random: inout SeededRandom) -> [UInt8] {
        func cells(_ size: Int) -> (grid: [Int], columns: Int) {
            let columns = (width + size - 1) / size, rows = (height + size - 1) / size
            return ((0..<(columns * rows)).map { _ in Int(random.next() % UInt64(2 * spread + 1)) - spread }, columns)
        }
        let coarse = cells(16), medium = cells(4)
        var result = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let fine = Int(random.next() % UInt64(2 * spread + 1)) - spread
                let c = coarse.grid[(y / 16) * coarse.columns + x / 16]
                let m = medium.grid[(y / 4) * medium.columns + x / 4]
                result[y * width + x] = UInt8(clamping: mean + (2 * c + m + fine) / 4)
            }
        }
        return result
    }
}
