import ConferCodecs
import ConferMedia
import Testing

/// VP9 with temporal layers on libvpx's SVC path: the pattern, the switching points and
/// P_DIFF distances the RTP descriptor needs, that each lower set of layers decodes on its
/// own with the VP9 decoder, and what a change of layer count costs.
@Suite struct VP9TemporalLayerTests {
    static func encode(layers: Int, count: Int, bitrate: Int = 600_000, dropping: Bool = false,
                       switches: [Int: Int] = [:], noise: Int = 4, maximum: Int? = nil) throws -> [EncodedFrame?] {
        try TemporalLayerTestStream.encode(.vp9, layers: layers, count: count, bitrate: bitrate, dropping: dropping,
                                           switches: switches, noise: noise, maximum: maximum)
    }

    static func decodeLayers(upTo maximumLayer: UInt8, of frames: [EncodedFrame?]) throws -> (decoded: Int, psnr: Double) {
        try TemporalLayerTestStream.decodeLayers(.vp9, upTo: maximumLayer, of: frames)
    }

    @Test func threeLayersFollowTheZeroTwoOneTwoPattern() throws {
        let frames = try Self.encode(layers: 3, count: 12)
        let infos = try frames.map { try #require($0?.vp9) }
        #expect(infos.map(\.temporalLayer) == [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2])
        #expect(infos.allSatisfy { $0.switchingUpPoint == ($0.temporalLayer > 0) })
        #expect(infos.map(\.pictureID) == Array(0..<12))
        // Every frame refers to the last base frame: P_DIFF 1, 2, 3 after it, 4 for the next base.
        #expect(infos.map(\.referenceDistance) == [nil, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3])
        #expect(frames[0]?.isKeyframe == true && frames.dropFirst().allSatisfy { $0?.isKeyframe == false })
    }

    /// The layered stream holds its bitrate (libvpx's per-layer rate control is set up).
    @Test func layeredStreamHoldsItsBitrate() throws {
        let frames = try Self.encode(layers: 3, count: 90, bitrate: 400_000)
        let bits = frames.dropFirst(30).compactMap { $0?.data.count }.reduce(0, +) * 8
        let rate = Double(bits) / 2    // 60 frames at 30 fps
        #expect(rate < 400_000 * 1.3 && rate > 400_000 * 0.5, "\(rate) bit/s for a 400 kbit/s target")
    }

    /// Opened with one layer, VP9 is re-opened on the SVC path when layers turn on, which
    /// costs one keyframe; from then on, off and on again cost none. A base-only decoder
    /// keeps up throughout, and the rate holds after the re-opening.
    @Test func turningLayersOnCostsOneKeyframeThenNone() throws {
        let frames = try Self.encode(layers: 1, count: 40, bitrate: 400_000, switches: [8: 3, 16: 1, 24: 3])
        let layers = frames.map { $0?.vp9?.temporalLayer }
        #expect(layers[0..<8].allSatisfy { $0 == 0 })
        #expect(Array(layers[8..<16]) == [0, 2, 1, 2, 0, 2, 1, 2])
        #expect(layers[16..<24].allSatisfy { $0 == 0 })
        #expect(Array(layers[24..<32]) == [0, 2, 1, 2, 0, 2, 1, 2])
        #expect(frames.indices.filter { frames[$0]?.isKeyframe == true } == [0, 8])
        let base = try Self.decodeLayers(upTo: 0, of: frames)
        #expect(base.decoded == 8 + 2 + 8 + 4 && base.psnr >= 30)
        let bits = frames[24...].compactMap { $0?.data.count }.reduce(0, +) * 8
        #expect(Double(bits) / (16.0 / 30) < 400_000 * 1.5, "\(bits) bits in 16 frames")
    }

    /// Told the most layers it will get, an encoder opened with one is on the SVC path from
    /// the start: turning layers on and off costs no keyframe, every frame names the frame
    /// it refers to, and the rate holds.
    @Test func aMaximumLetsLayersTurnOnWithoutAKeyframe() throws {
        let frames = try Self.encode(layers: 1, count: 60, bitrate: 400_000, switches: [8: 3, 16: 1, 24: 3], maximum: 3)
        let layers = frames.map { $0?.vp9?.temporalLayer }
        #expect(layers[0..<8].allSatisfy { $0 == 0 } && layers[16..<24].allSatisfy { $0 == 0 })
        #expect(Array(layers[8..<16]) == [0, 2, 1, 2, 0, 2, 1, 2])
        #expect(frames.indices.filter { frames[$0]?.isKeyframe == true } == [0])
        // One layer on this path refers to the frame before, and says so.
        #expect(frames[1..<8].allSatisfy { $0?.vp9?.referenceDistance == 1 })
        let base = try Self.decodeLayers(upTo: 0, of: frames)
        #expect(base.decoded == 8 + 2 + 8 + 9 && base.psnr >= 30)
        let bits = frames[0..<8].compactMap { $0?.data.count }.reduce(0, +) * 8
        #expect(Double(bits) / (8.0 / 30) < 400_000 * 2.5, "\(bits) bits in the first 8 frames (keyframe included)")
        let later = frames[30...].compactMap { $0?.data.count }.reduce(0, +) * 8
        #expect(Double(later) / 1.0 < 400_000 * 1.3, "\(later) bits in the last second")
    }

    /// Upper-layer frames skipped to hold a low bitrate (``VPXTemporalLayerTests/droppingSparesTheBaseLayer(codec:)``):
    /// P_DIFF still names the last base frame across them.
    @Test func pDiffNamesTheBaseFrameAcrossSkippedFrames() throws {
        let frames = try Self.encode(layers: 3, count: 90, bitrate: 60_000, dropping: true, noise: 20)
        #expect(frames.contains { $0 == nil })
        var lastBase: UInt16?
        for frame in frames.compactMap({ $0 }) {
            let info = try #require(frame.vp9)
            if let lastBase, !frame.isKeyframe { #expect(info.referenceDistance == UInt8((info.pictureID &- lastBase) & 0x7FFF)) }
            if info.temporalLayer == 0 { lastBase = info.pictureID }
        }
    }
}
