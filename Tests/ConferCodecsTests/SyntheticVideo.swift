import ConferMedia
import Foundation

/// Seeded synthetic video for codec tests: a moving luma/chroma gradient, a moving
/// textured box and seeded noise. Written here rather than shared because the shared
/// synthetic sources are being written in parallel.
struct SyntheticVideo {
    let width: Int
    let height: Int
    /// Noise is uniform in −amplitude…amplitude, added to every pixel.
    let noiseAmplitude: Int
    let pool: FramePool
    private let noise: [Int8]
    private var random: SeededRandom

    init(width: Int, height: Int, noiseAmplitude: Int, seed: UInt64 = 0xC0FFEE) {
        self.width = width
        self.height = height
        self.noiseAmplitude = noiseAmplitude
        pool = FramePool(width: width, height: height, capacity: 4)
        random = SeededRandom(seed: seed)
        let span = 2 * noiseAmplitude + 1
        var table = [Int8](repeating: 0, count: width * height + 8192)
        if noiseAmplitude > 0 {
            for i in table.indices { table[i] = Int8(Int(random.next() % UInt64(span)) - noiseAmplitude) }
        }
        noise = table
    }

    /// Frame `index` at `fps`, stamped with its presentation time.
    mutating func frame(_ index: Int, fps: Double = 30) -> VideoFrame {
        // A fresh, seeded window of the noise table per frame, so noise changes every frame.
        let noiseOffset = Int(random.next() % 8192)
        let picture = pool.makeFrame(timestamp: .seconds(Double(index) / fps))
        let boxSize = min(width, height) / 4
        let boxX = (index * 5) % max(1, width - boxSize)
        let boxY = (index * 3) % max(1, height - boxSize)
        let shift = index * 3
        let plane = picture.y
        noise.withUnsafeBufferPointer { noise in
            for y in 0..<height {
                let row = plane.row(y)
                let rowBase = 40 + y * 60 / height
                let noiseRow = noiseOffset + y * width
                for x in 0..<width {
                    var value = rowBase + ((x + shift) % width) * 100 / width
                    if x >= boxX && x < boxX + boxSize && y >= boxY && y < boxY + boxSize {
                        // A checkerboard of 8-pixel squares gives the box edges to track.
                        value = ((x - boxX) / 8 + (y - boxY) / 8) % 2 == 0 ? 220 : 150
                    }
                    value += Int(noise[noiseRow + x])
                    row[x] = UInt8(clamping: value)
                }
            }
        }
        let chromaWidth = picture.layout.chromaWidth, chromaHeight = picture.layout.chromaHeight
        let u = picture.u, v = picture.v
        for y in 0..<chromaHeight {
            let uRow = u.row(y), vRow = v.row(y)
            for x in 0..<chromaWidth {
                let inBox = 2 * x >= boxX && 2 * x < boxX + boxSize && 2 * y >= boxY && 2 * y < boxY + boxSize
                uRow[x] = inBox ? 90 : UInt8(100 + ((x + shift / 2) % chromaWidth) * 50 / chromaWidth)
                vRow[x] = inBox ? 200 : UInt8(110 + y * 40 / chromaHeight)
            }
        }
        return picture.finish()
    }
}

/// Peak signal-to-noise ratio of the luma planes of two same-sized pictures, in dB
/// (ConferMedia's metric; 128 dB for identical planes).
func lumaPSNR(_ a: VideoFrame, _ b: VideoFrame) -> Double {
    (try? QualityMetrics.psnr(a, b).y) ?? 0
}
