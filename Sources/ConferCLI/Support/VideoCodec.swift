import ArgumentParser
import ConferMedia

/// `--codec` where only video makes sense (a composite, a camera, a simulated stream): its
/// help and its refusal list exactly vp8, vp9 and h264, where ``Codec`` would offer opus too.
enum VideoCodec: String, CaseIterable, ExpressibleByArgument, Sendable {
    case vp8, vp9, h264

    /// The engine's codec.
    var mediaCodec: Codec {
        switch self {
        case .vp8: .vp8
        case .vp9: .vp9
        case .h264: .h264
        }
    }
}
