/// A 5×7 pixel font of the ten digits, drawn by hand into luma so synthetic pictures
/// can show numbers a person can read off a screenshot.
enum BitmapFont {
    static let glyphWidth = 5
    static let glyphHeight = 7

    /// Rows of each digit, top first; bit 4 is the leftmost pixel.
    private static let rows: [UInt8] = [
        0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110, // 0
        0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, // 1
        0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111, // 2
        0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110, // 3
        0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010, // 4
        0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110, // 5
        0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110, // 6
        0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000, // 7
        0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110, // 8
        0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100, // 9
    ]

    /// Whether pixel (`x`, `y`) of `digit`'s glyph is lit.
    static func isLit(digit: Int, x: Int, y: Int) -> Bool {
        rows[digit * glyphHeight + y] & (1 << (glyphWidth - 1 - x)) != 0
    }

    /// Draws `value` as `digitCount` zero-padded decimal digits, as large as fit and
    /// centred in `rect`, setting lit pixels' luma to `luma` (chroma is left alone).
    static func drawNumber(_ value: Int, digitCount: Int, luma: UInt8, in rect: PixelRect,
                           on frame: borrowing MutableVideoFrame) {
        // Each glyph takes 5 columns plus 1 of spacing; one more column and two rows of margin.
        let scale = min(rect.width / (digitCount * (glyphWidth + 1) + 1), rect.height / (glyphHeight + 2))
        guard scale > 0 else { return }
        let textWidth = (digitCount * (glyphWidth + 1) - 1) * scale
        let left = rect.x + (rect.width - textWidth) / 2
        let top = rect.y + (rect.height - glyphHeight * scale) / 2
        let plane = frame.y
        let bounds = PixelRect(width: plane.width, height: plane.height)
        var remaining = max(0, value)
        for position in stride(from: digitCount - 1, through: 0, by: -1) {
            let digit = remaining % 10
            remaining /= 10
            let glyphLeft = left + position * (glyphWidth + 1) * scale
            for gy in 0..<glyphHeight {
                for gx in 0..<glyphWidth where isLit(digit: digit, x: gx, y: gy) {
                    let block = PixelRect(x: glyphLeft + gx * scale, y: top + gy * scale, width: scale, height: scale)
                        .intersection(bounds)
                    for row in block.y..<block.maxY {
                        (plane.base + row * plane.stride + block.x).update(repeating: luma, count: block.width)
                    }
                }
            }
        }
    }
}
