import ConferCodecs
import ConferMedia
import Testing

@Suite struct VPXDecoderTests {
    static let codecs: [Codec] = [.vp8, .vp9]

    /// `count` encoded frames of `video`, with keyframes forced at `keyframes` (besides frame 0).
    static func stream(_ codec: Codec, _ video: VPXTestVideo, count: Int, keyframes: Set<Int> = []) throws -> [EncodedFrame] {
        let settings = VideoEncoderSettings(width: video.width, height: video.height, bitrate: 600_000)
        var encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
        return try (0..<count).map { index in
            if keyframes.contains(index) { encoder.requestKeyframe() }
            return try #require(try encoder.encode(video.frame(index)))
        }
    }

    /// Decodes `frame` and checks it against source frame `index`.
    static func expectDecodes(_ decoder: VPXDecoder, _ frame: EncodedFrame, _ video: VPXTestVideo, _ index: Int,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decoded = try #require(try decoder.decode(frame), "frame \(index)", sourceLocation: sourceLocation)
        #expect(decoded.width == video.width && decoded.height == video.height, sourceLocation: sourceLocation)
        #expect(decoded.timestamp == frame.timestamp, sourceLocation: sourceLocation)
        #expect(lumaPSNR(video.frame(index), decoded) >= 30, "frame \(index)", sourceLocation: sourceLocation)
    }

    /// Decoding `frame` must throw a ``VPXError`` or produce nothing; returns the error, if any.
    @discardableResult
    static func expectRejected(_ decoder: VPXDecoder, _ frame: EncodedFrame, _ what: String,
                               sourceLocation: SourceLocation = #_sourceLocation) -> VPXError? {
        do {
            let picture = try decoder.decode(frame)
            #expect(picture == nil, "\(what) decoded to a picture", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(!error.message.isEmpty && error.operation == .decode, sourceLocation: sourceLocation)
            #expect(decoder.needsKeyframe, "\(what): an error must make the decoder wait for a keyframe", sourceLocation: sourceLocation)
            return error
        }
    }

    @Test(arguments: codecs)
    func waitsForAKeyframeAtTheStart(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 11)
        let frames = try Self.stream(codec, video, count: 12, keyframes: [8])
        let decoder = try VPXDecoder(codec: codec)
        #expect(decoder.needsKeyframe)
        // Joining mid-stream: inter frames give nothing until the keyframe.
        for index in 1..<8 { #expect(try decoder.decode(frames[index]) == nil) }
        #expect(decoder.needsKeyframe)
        for index in 8..<12 { try Self.expectDecodes(decoder, frames[index], video, index) }
        #expect(!decoder.needsKeyframe)
    }

    @Test(arguments: codecs)
    func rejectsCorruptPayloads(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 12)
        let frames = try Self.stream(codec, video, count: 3)
        let keyframe = frames[0].data
        var random = SeededRandom(seed: 99)
        var payloads: [(String, [UInt8])] = []
        for length in [1, 2, 3, 9, 10, 11, 64, 500, 4000] {
            payloads.append(("random \(length) bytes", (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }))
            payloads.append(("\(length) zero bytes", [UInt8](repeating: 0, count: length)))
        }
        for cut in [1, 3, 6, 10, 20, keyframe.count / 4, keyframe.count / 2, keyframe.count - 8] {
            payloads.append(("keyframe cut to \(cut) bytes", Array(keyframe[..<cut])))
        }

        let decoder = try VPXDecoder(codec: codec)
        var errors = 0
        for (what, payload) in payloads {
            // Start each from a good state so the payload reaches libvpx even when it is not a keyframe.
            try Self.expectDecodes(decoder, frames[0], video, 0)
            var bad = frames[0]
            bad.data = payload
            if Self.expectRejected(decoder, bad, what) != nil { errors += 1 }
            // Whatever the payload did, the stream recovers at the next keyframe.
            try Self.expectDecodes(decoder, frames[0], video, 0)
            try Self.expectDecodes(decoder, frames[1], video, 1)
        }
        // Nearly every payload reaches libvpx and fails there (the rest are skipped as non-key frames).
        #expect(errors >= payloads.count - 2, "\(errors) of \(payloads.count) payloads raised an error")

        let empty = try #require(throws: VPXError.self) { try decoder.decode(EncodedFrame(codec: codec)) }
        #expect(empty.code == .invalidParameter)
    }

    /// VP8 and VP9 carry no checksum: zeros in place of coefficient data still parse. libvpx
    /// must decode such a frame without harm (a wrong picture, not a crash), and the stream goes on.
    @Test(arguments: codecs)
    func survivesWellFormedGarbage(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 18)
        let frames = try Self.stream(codec, video, count: 3, keyframes: [2])
        let decoder = try VPXDecoder(codec: codec)
        var damaged = frames[0]
        for i in (damaged.data.count / 3)..<damaged.data.count { damaged.data[i] = 0 }
        do {
            if let picture = try decoder.decode(damaged) { #expect(lumaPSNR(video.frame(0), picture) < 30) }
        } catch {
            #expect(decoder.needsKeyframe)
        }
        try Self.expectDecodes(decoder, frames[2], video, 2)
    }

    @Test(arguments: codecs)
    func recoversAtTheNextKeyframeAfterCorruptInterFrames(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 13)
        let frames = try Self.stream(codec, video, count: 40, keyframes: [25])
        let decoder = try VPXDecoder(codec: codec)
        for index in 0..<10 { try Self.expectDecodes(decoder, frames[index], video, index) }

        var truncated = frames[10]
        truncated.data.removeLast(truncated.data.count / 2)
        let error = try #require(Self.expectRejected(decoder, truncated, "truncated inter frame"))
        #expect(error.code == .corruptFrame, "\(error)")
        #expect(decoder.needsKeyframe)

        for index in 11..<25 { #expect(try decoder.decode(frames[index]) == nil, "frame \(index)") }
        #expect(frames[25].isKeyframe)
        for index in 25..<40 { try Self.expectDecodes(decoder, frames[index], video, index) }
        #expect(!decoder.needsKeyframe)
    }

    @Test(arguments: codecs)
    func followsResolutionChanges(codec: Codec) throws {
        let sizes = [(320, 240), (640, 360), (176, 144)]
        let decoder = try VPXDecoder(codec: codec, threads: 2)
        for (segment, (width, height)) in sizes.enumerated() {
            // Each size is its own encoder, as a sender re-creates it; the decoder sees one stream.
            let video = VPXTestVideo(width: width, height: height, seed: 14 + UInt64(segment))
            let frames = try Self.stream(codec, video, count: 8)
            for (index, frame) in frames.enumerated() { try Self.expectDecodes(decoder, frame, video, index) }
        }
    }

    @Test(arguments: codecs)
    func decodedFramesOutliveLaterDecodes(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 17)
        let frames = try Self.stream(codec, video, count: 12)
        let decoder = try VPXDecoder(codec: codec, poolCapacity: 4)
        // Keep every picture: the pool must not hand a live frame's storage out again.
        let pictures = try frames.map { try #require(try decoder.decode($0)) }
        for (index, picture) in pictures.enumerated() {
            #expect(lumaPSNR(video.frame(index), picture) >= 30)
            for other in pictures[(index + 1)...] { #expect(!picture.sharesStorage(with: other)) }
        }
    }

    @Test func rejectsOtherCodecs() {
        let error = #expect(throws: VPXError.self) { _ = try VPXDecoder(codec: .opus) }
        #expect(error?.code == .invalidParameter && error?.operation == .decoderInit)
    }
}
