/// An axis-aligned rectangle of whole pixels, in a picture's luma coordinates.
///
/// I420 stores one chroma sample per 2×2 luma block, so a rectangle that is written or
/// read plane by plane must start on an even column and row (``isChromaAligned``).
public struct PixelRect: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Left edge (first column inside the rectangle).
    public var x: Int
    /// Top edge (first row inside the rectangle).
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// The rectangle at `x`, `y` of `width` × `height`.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The rectangle at the origin covering a whole `width` × `height` picture.
    public init(width: Int, height: Int) { self.init(x: 0, y: 0, width: width, height: height) }

    /// One column past the right edge.
    public var maxX: Int { x + width }
    /// One row past the bottom edge.
    public var maxY: Int { y + height }
    /// Whether the rectangle covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// Whether the top-left corner falls on a chroma sample (even column and row).
    public var isChromaAligned: Bool { x & 1 == 0 && y & 1 == 0 }

    /// Whether `other` lies wholly inside this rectangle.
    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// The part of this rectangle that is also inside `other` (empty when they do not meet).
    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The sub-rectangle at fractions of this one's size, rounded to whole pixels.
    ///
    /// Synthetic pictures lay themselves out in fractions so the same layout can be found
    /// again after the picture has been scaled.
    public func fraction(x fx: Double, y fy: Double, width fw: Double, height fh: Double) -> PixelRect {
        let left = x + Int((Double(width) * fx).rounded())
        let top = y + Int((Double(height) * fy).rounded())
        let right = x + Int((Double(width) * (fx + fw)).rounded())
        let bottom = y + Int((Double(height) * (fy + fh)).rounded())
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    public var description: String { "\(width)×\(height)@(\(x),\(y))" }
}
