/// A machine-readable frame counter drawn as black and white blocks, built to survive
/// scaling and lossy coding.
///
/// The strip is 18 columns by 2 rows. Column 0 is a marker (white over black), columns
/// 1–16 carry the 16-bit counter, most significant bit first (a 1 is white over black, a
/// 0 black over white), and column 17 is the opposite marker. Each bit is read by comparing
/// its two cells, so no brightness threshold is needed and a smeared or tinted picture
/// still decodes; the markers and a minimum contrast reject pictures holding no strip.
enum FrameCounterStrip {
    static let columns = 18
    static let bitCount = 16
    /// Minimum luma difference between a column's two cells for it to count as read
    /// (black and white differ by 219).
    static let minimumContrast = 48.0

    /// Draws `counter` (modulo 2¹⁶) filling `rect`.
    static func draw(_ counter: Int, in rect: PixelRect, on frame: borrowing MutableVideoFrame) {
        let value = UInt16(truncatingIfNeeded: counter)
        let middle = rect.y + rect.height / 2
        for column in 0..<columns {
            let left = rect.x + rect.width * column / columns
            let right = rect.x + rect.width * (column + 1) / columns
            let topIsWhite: Bool
            switch column {
            case 0: topIsWhite = true
            case columns - 1: topIsWhite = false
            default: topIsWhite = value & (1 << (bitCount - column)) != 0
            }
            let top = PixelRect(x: left, y: rect.y, width: right - left, height: middle - rect.y)
            let bottom = PixelRect(x: left, y: middle, width: right - left, height: rect.maxY - middle)
            frame.fill(top, with: topIsWhite ? .white : .black)
            frame.fill(bottom, with: topIsWhite ? .black : .white)
        }
    }

    /// The counter in the strip filling `rect` of `frame` (`rect` in `frame`'s pixels, of
    /// any scale), or nil when the strip is missing or unreadable.
    static func read(from frame: VideoFrame, in rect: PixelRect) -> Int? {
        guard rect.width >= columns, rect.height >= 2,
              PixelRect(width: frame.width, height: frame.height).contains(rect) else { return nil }
        return frame.withPlanes { luma, _, _ in
            var value = 0
            for column in 0..<columns {
                let cellWidth = Double(rect.width) / Double(columns)
                let centreX = Double(rect.x) + cellWidth * (Double(column) + 0.5)
                let cellHeight = Double(rect.height) / 2
                let top = mean(luma, centreX: centreX, centreY: Double(rect.y) + cellHeight * 0.5,
                               halfWidth: cellWidth / 4, halfHeight: cellHeight / 4)
                let bottom = mean(luma, centreX: centreX, centreY: Double(rect.y) + cellHeight * 1.5,
                                  halfWidth: cellWidth / 4, halfHeight: cellHeight / 4)
                let difference = top - bottom
                guard abs(difference) >= minimumContrast else { return nil }
                switch column {
                case 0: guard difference > 0 else { return nil }
                case columns - 1: guard difference < 0 else { return nil }
                default: value = value << 1 | (difference > 0 ? 1 : 0)
                }
            }
            return value
        }
    }

    /// Mean luma of the pixels whose centres lie within the window, and of at least the
    /// one pixel under the centre.
    private static func mean(_ plane: ImagePlane, centreX: Double, centreY: Double,
                             halfWidth: Double, halfHeight: Double) -> Double {
        let x0 = max(0, Int((centreX - halfWidth).rounded()))
        let x1 = min(plane.width, max(x0 + 1, Int((centreX + halfWidth).rounded())))
        let y0 = max(0, Int((centreY - halfHeight).rounded()))
        let y1 = min(plane.height, max(y0 + 1, Int((centreY + halfHeight).rounded())))
        var sum = 0
        for y in y0..<y1 {
            for x in x0..<x1 { sum += Int(plane[x, y]) }
        }
        return Double(sum) / Double((x1 - x0) * (y1 - y0))
    }
}
