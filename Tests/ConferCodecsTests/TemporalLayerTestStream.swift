import ConferCodecs
import ConferMedia
import Testing

/// A 320×240 noisy test stream encoded in temporal layers and decoded layer by layer: what
/// the VP8 and VP9 layer suites share.
enum TemporalLayerTestStream {
    /// Encodes `count` frames of `codec` with `layers` layers (nil where the encoder skipped
    /// one), turning the layer count to `switches[index]` before frame `index`.
    static func encode(_ codec: Codec, layers: Int, count: Int, bitrate: Int = 600_000, dropping: Bool = false,
                       switches: [Int: Int] = [:], noise: Int = 4, maximum: Int? = nil) throws -> [EncodedFrame?] {
        let video = VPXTestVideo(width: 320, height: 240, noise: noise, seed: 11)
        let settings = VideoEncoderSettings(width: 320, height: 240, bitrate: bitrate, temporalLayers: layers,
                                            maximumTemporalLayers: maximum)
        let encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: dropping)
        var frames: [EncodedFrame?] = []
        for index in 0..<count {
            if let layers = switches[index] { try encoder.setTemporalLayers(layers) }
            var output = EncodedFrame(codec: codec)
            frames.append(try encoder.encode(video.frame(index), into: &output) ? output : nil)
        }
        return frames
    }

    /// Decodes the frames of layer `maximumLayer` and below with a fresh decoder; every one
    /// must decode to a picture (a reference into a left-out layer would fail or corrupt).
    static func decodeLayers(_ codec: Codec, upTo maximumLayer: UInt8,
                             of frames: [EncodedFrame?]) throws -> (decoded: Int, psnr: Double) {
        let video = VPXTestVideo(width: 320, height: 240, noise: 4, seed: 11)
        let decoder = try VPXDecoder(codec: codec)
        var decoded = 0
        var total = 0.0
        for (index, frame) in frames.enumerated() {
            guard let frame, let layer = frame.vp8?.temporalLayer ?? frame.vp9?.temporalLayer, layer <= maximumLayer else { continue }
            let picture = try #require(try decoder.decode(frame))
            decoded += 1
            total += lumaPSNR(video.frame(index), picture)
        }
        return (decoded, total / Double(max(decoded, 1)))
    }
}
