/// Colours that tell synthetic participants apart, even after lossy coding and scaling.
///
/// 24 colours chosen greedily to be as far apart as possible in Y′CbCr (any two of the
/// first 16 are at least 63 units apart, of all 24 at least 51), each mid-bright and
/// saturated so it also stands apart from black, white and grey. Index `n` and `n + 24`
/// share a colour.
public enum TestPalette {
    /// How many distinct colours there are before indices wrap.
    public static var count: Int { colors.count }

    /// The colour for participant `index` (any integer; negative indices wrap too).
    public static func color(at index: Int) -> YUVColor {
        let n = colors.count
        return colors[((index % n) + n) % n]
    }

    private static let colors: [YUVColor] = [
        (225, 30, 30), (0, 255, 255), (30, 0, 255), (165, 255, 0), (0, 120, 15), (225, 165, 255),
        (240, 0, 255), (0, 255, 30), (60, 120, 225), (255, 150, 15), (105, 0, 105), (120, 240, 180),
        (135, 165, 60), (195, 75, 165), (105, 60, 0), (0, 45, 135), (0, 195, 120), (135, 45, 255),
        (240, 195, 135), (255, 105, 105), (240, 0, 135), (90, 195, 255), (90, 75, 135), (0, 75, 255),
    ].map { YUVColor(red: $0.0, green: $0.1, blue: $0.2) }
}
