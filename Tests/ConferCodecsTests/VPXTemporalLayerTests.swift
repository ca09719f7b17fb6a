import ConferCodecs
import ConferMedia
import Testing

/// VP8 with temporal layers: the pattern, the descriptor fields, that each lower set of
/// layers decodes on its own, that layers can be turned on and off mid-stream, and that
/// dropping frames spares the base layer.
@Suite struct VPXTemporalLayerTests {
    static func encode(layers: Int, count: Int, bitrate: Int = 600_000, dropping: Bool = false,
                       switches: [Int: Int] = [:], noise: Int = 4) throws -> [EncodedFrame?] {
        try TemporalLayerTestStream.encode(.vp8, layers: layers, count: count, bitrate: bitrate, dropping: dropping,
                                           switches: switches, noise: noise)
    }

    static func decodeLayers(upTo maximumLayer: UInt8, of frames: [EncodedFrame?]) throws -> (decoded: Int, psnr: Double) {
        try TemporalLayerTestStream.decodeLayers(.vp8, upTo: maximumLayer, of: frames)
    }

    @Test func threeLayersFollowTheZeroTwoOneTwoPattern() throws {
        let frames = try Self.encode(layers: 3, count: 16)
        let infos = try frames.map { try #require($0?.vp8) }
        #expect(infos.map(\.temporalLayer) == [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2])
        // Upper frames refer to the base only: each is a switching point; base frames are not.
        #expect(infos.allSatisfy { $0.layerSync == ($0.temporalLayer > 0) })
        // TL0PICIDX counts base frames; upper frames carry their base's.
        #expect(infos.map(\.tl0PictureIndex) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
        #expect(frames[0]?.isKeyframe == true && frames.dropFirst().allSatisfy { $0?.isKeyframe == false })
    }

    /// For both codecs (VP9 through libvpx's SVC path).
    @Test(arguments: [Codec.vp8, .vp9])
    func eachSetOfLowerLayersDecodesOnItsOwn(codec: Codec) throws {
        let frames = try TemporalLayerTestStream.encode(codec, layers: 3, count: 60)
        let all = try TemporalLayerTestStream.decodeLayers(codec, upTo: 2, of: frames)
        let half = try TemporalLayerTestStream.decodeLayers(codec, upTo: 1, of: frames)
        let base = try TemporalLayerTestStream.decodeLayers(codec, upTo: 0, of: frames)
        #expect(all.decoded == 60 && half.decoded == 30 && base.decoded == 15)
        // Each decoded picture is the frame it stands for, as good with fewer layers.
        #expect(base.psnr >= 30 && half.psnr >= 30 && all.psnr >= 30, "\(base.psnr) \(half.psnr) \(all.psnr)")
    }

    @Test(arguments: [Codec.vp8, .vp9])
    func twoLayersAlternate(codec: Codec) throws {
        let frames = try TemporalLayerTestStream.encode(codec, layers: 2, count: 8)
        #expect(frames.map { $0?.vp8?.temporalLayer ?? $0?.vp9?.temporalLayer } == [0, 1, 0, 1, 0, 1, 0, 1])
        #expect(try TemporalLayerTestStream.decodeLayers(codec, upTo: 0, of: frames).decoded == 4)
    }

    /// Turned on mid-stream, the pattern starts with a base frame and no keyframe; turned
    /// off, every frame is base again; a base-only decoder keeps up throughout.
    @Test func layersTurnOnAndOffWithoutAKeyframe() throws {
        let frames = try Self.encode(layers: 1, count: 24, switches: [8: 3, 16: 1])
        let layers = frames.map { $0?.vp8?.temporalLayer }
        #expect(layers[0..<8].allSatisfy { $0 == 0 })
        #expect(Array(layers[8..<16]) == [0, 2, 1, 2, 0, 2, 1, 2])
        #expect(layers[16...].allSatisfy { $0 == 0 })
        #expect(frames.filter { $0?.isKeyframe == true }.count == 1)
        let base = try Self.decodeLayers(upTo: 0, of: frames)
        #expect(base.decoded == 8 + 2 + 8 && base.psnr >= 30)
    }

    /// Far below what the picture needs, the encoder skips upper-layer frames, never base ones.
    @Test(arguments: [Codec.vp8, .vp9])
    func droppingSparesTheBaseLayer(codec: Codec) throws {
        let frames = try TemporalLayerTestStream.encode(codec, layers: 3, count: 90, bitrate: 60_000, dropping: true, noise: 20)
        let dropped = frames.enumerated().filter { $0.element == nil }.map(\.offset)
        #expect(dropped.count >= 10, "only \(dropped.count) frames dropped at 60 kbit/s")
        // Frames 0, 4, 8, … are the base layer.
        #expect(dropped.allSatisfy { $0 % 4 != 0 })
        #expect(try TemporalLayerTestStream.decodeLayers(codec, upTo: 2, of: frames).decoded == 90 - dropped.count)
    }

    @Test func badLayerCountsAreRefused() throws {
        #expect(throws: VPXError.self) {
            _ = try VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 64, height: 64, temporalLayers: 4))
        }
        #expect(throws: VPXError.self) {
            _ = try VPXEncoder(codec: .vp9, settings: VideoEncoderSettings(width: 64, height: 64, temporalLayers: 4))
        }
        let encoder = try VPXEncoder(codec: .vp8, settings: VideoEncoderSettings(width: 64, height: 64))
        #expect(throws: VPXError.self) { try encoder.setTemporalLayers(0) }
    }

    @Test func cumulativeLayerBitratesFollowTheShares() {
        var settings = VideoEncoderSettings(width: 64, height: 64, bitrate: 1_000_000, temporalLayers: 3)
        #expect(settings.cumulativeLayerBitrates == [400_000, 600_000, 1_000_000])
        settings.baseLayerShare = 0.25
        #expect(settings.cumulativeLayerBitrates == [250_000, 500_000, 1_000_000])
        settings.temporalLayers = 2
        #expect(settings.cumulativeLayerBitrates == [250_000, 1_000_000])
        settings.temporalLayers = 1
        #expect(settings.cumulativeLayerBitrates == [1_000_000])
    }
}
