/// A colour as 8-bit BT.601 limited-range Y′CbCr, the form I420 frames store.
public struct YUVColor: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Luma, 16 (black) to 235 (white).
    public var y: UInt8
    /// Blue-difference chroma, 16 to 240, 128 for grey.
    public var u: UInt8
    /// Red-difference chroma, 16 to 240, 128 for grey.
    public var v: UInt8

    /// The colour with these components.
    public init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    /// The colour of 8-bit sRGB components, converted with BT.601 limited-range
    /// coefficients — the matrix libyuv's I420 ↔ RGB conversions use.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        let r = Double(red), g = Double(green), b = Double(blue)
        let yy = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
        let uu = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
        let vv = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
        self.init(y: Self.clamp(yy), u: Self.clamp(uu), v: Self.clamp(vv))
    }

    /// Limited-range black.
    public static let black = YUVColor(y: 16, u: 128, v: 128)
    /// Limited-range white.
    public static let white = YUVColor(y: 235, u: 128, v: 128)
    /// Mid grey.
    public static let grey = YUVColor(y: 126, u: 128, v: 128)

    /// Euclidean distance in Y′CbCr space, a rough measure of how easily two colours
    /// are told apart after lossy coding.
    public func distance(to other: YUVColor) -> Double {
        let dy = Double(y) - Double(other.y)
        let du = Double(u) - Double(other.u)
        let dv = Double(v) - Double(other.v)
        return (dy * dy + du * du + dv * dv).squareRoot()
    }

    public var description: String { "YUV(\(y),\(u),\(v))" }

    private static func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
}
