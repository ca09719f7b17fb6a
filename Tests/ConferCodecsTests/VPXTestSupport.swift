import ConferMedia

/// Seeded synthetic video for codec tests: a moving diagonal gradient, a moving textured
/// box and, optionally, noise on the gradient that changes every frame.
///
/// Frame `n` depends only on the seed and `n`, so tests can regenerate a source frame to
/// compare with what the decoder returns. Every row is a bulk copy so debug-build tests stay
/// fast: noise is baked into several noisy copies of the gradient ramp, and each row of each
/// frame takes a randomly chosen copy, so the noise differs row to row and frame to frame.
struct VPXTestVideo {
    let width: Int
    let height: Int
    let frameRate: Double
    /// Peak noise amplitude added to every sample (0: none).
    let noise: Int
    let seed: UInt64
    private let lumaRamps: [[UInt8]]
    private let chromaRamp: [UInt8]

    private static let period = 448
    private static let noisyRampCount = 32

    init(width: Int, height: Int, frameRate: Double = 30, noise: Int = 2, seed: UInt64 = 1) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.noise = noise
        self.seed = seed
        // A triangle wave (no wrap-around edge) long enough for any row offset.
        let period = Self.period
        let ramp = (0..<(period + width + height)).map { i in
            let k = i % period
            return 16 + (k < period / 2 ? k : period - 1 - k)
        }
        var random = SeededRandom(seed: seed)
        lumaRamps = (0..<(noise == 0 ? 1 : Self.noisyRampCount)).map { _ in
            ramp.map { value in
                let noisy = noise == 0 ? value : value + Int(random.next() % UInt64(2 * noise + 1)) - noise
                return UInt8(min(max(noisy, 0), 255))
            }
        }
        chromaRamp = (0..<(period + width)).map { i in
            let k = i % period
            return UInt8(96 + (k < period / 2 ? k : period - 1 - k) / 4)
        }
    }

    /// The layout every frame has.
    var layout: FrameLayout { FrameLayout(width: width, height: height) }

    /// The presentation time of frame `index`.
    func timestamp(_ index: Int) -> Timestamp { .seconds(Double(index) / frameRate) }

    /// Frame `index`.
    func frame(_ index: Int) -> VideoFrame {
        let picture = MutableVideoFrame(layout: layout, timestamp: timestamp(index))
        let y = picture.y, u = picture.u, v = picture.v
        let shift = (index * 4) % Self.period
        var random = SeededRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        for row in 0..<height {
            let ramp = lumaRamps[Int(random.next() % UInt64(lumaRamps.count))]
            ramp.withUnsafeBufferPointer { y.row(row).baseAddress!.update(from: $0.baseAddress! + shift + row, count: width) }
        }
        chromaRamp.withUnsafeBufferPointer { ramp in
            for row in 0..<u.height {
                u.row(row).baseAddress!.update(from: ramp.baseAddress! + (shift / 2 + row) % Self.period, count: u.width)
                v.row(row).baseAddress!.update(from: ramp.baseAddress! + Self.period - 1 - (row + shift / 3) % Self.period, count: v.width)
            }
        }
        drawBox(index, y: y, u: u, v: v)
        return picture.finish()
    }

    /// A checkered box bouncing around the picture.
    private func drawBox(_ index: Int, y: MutableImagePlane, u: MutableImagePlane, v: MutableImagePlane) {
        let size = max(8, min(width, height) / 4) & ~1
        let left = bounce(index * 7, range: width - size) & ~1
        let top = bounce(index * 5, range: height - size) & ~1
        for row in 0..<size {
            let line = y.row(top + row).baseAddress! + left
            for column in 0..<size { line[column] = ((row / 8 + column / 8) & 1) == 0 ? 40 : 220 }
        }
        for row in 0..<(size / 2) {
            (u.row(top / 2 + row).baseAddress! + left / 2).update(repeating: 200, count: size / 2)
            (v.row(top / 2 + row).baseAddress! + left / 2).update(repeating: 60, count: size / 2)
        }
    }

    private func bounce(_ position: Int, range: Int) -> Int {
        guard range > 0 else { return 0 }
        let k = position % (2 * range)
        return k < range ? k : 2 * range - k
    }
}



/// Whether a VP8 or VP9 bitstream starts with a keyframe, read from its first bytes.
func bitstreamIsKeyframe(_ data: [UInt8], codec: Codec) -> Bool {
    guard let first = data.first else { return false }
    switch codec {
    // VP8 frame tag bit 0 (RFC 6386 §9.1): 0 for a keyframe.
    case .vp8: return first & 1 == 0
    // VP9 profile 0 header: frame marker (2 bits), profile (2), show_existing (1), frame_type (1, 0 = key).
    default: return (first >> 2) & 1 == 0
    }
}
