/// An x264 speed preset, fastest first.
public enum X264Preset: String, Sendable, CaseIterable, Codable {
    /// The fastest preset; what real-time meetings use.
    case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow

    /// The preset for ``VideoEncoderSettings/speed``.
    ///
    /// The settings document 0 as ultrafast, while their default (8) comes from libvpx's
    /// `cpu-used`, where larger is faster. Both must mean real time, so 0 and anything ≥ 8
    /// map to ultrafast; 7 down to 1 walk towards slower presets as `cpu-used` does
    /// (7 superfast, 6 veryfast … 1 slower). Negative values are treated as 0.
    public init(speed: Int) {
        switch speed {
        case ...0, 8...: self = .ultrafast
        case 7: self = .superfast
        case 6: self = .veryfast
        case 5: self = .faster
        case 4: self = .fast
        case 3: self = .medium
        case 2: self = .slow
        default: self = .slower
        }
    }
}
