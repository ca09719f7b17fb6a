import ConferCodecs
import ConferMedia
import Testing

@Suite struct VPXEncoderTests {
    static let codecs: [Codec] = [.vp8, .vp9]

    /// Encodes and decodes `frames` frames of `video`; returns the mean luma PSNR.
    static func meanRoundTripPSNR(_ codec: Codec, video: VPXTestVideo, bitrate: Int, frames: Int) throws -> Double {
        let settings = VideoEncoderSettings(width: video.width, height: video.height, frameRate: video.frameRate, bitrate: bitrate)
        let encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
        let decoder = try VPXDecoder(codec: codec)
        var encoded = EncodedFrame(codec: codec)
        var total = 0.0
        for index in 0..<frames {
            let source = video.frame(index)
            #expect(try encoder.encode(source, into: &encoded))
            let decoded = try #require(try decoder.decode(encoded))
            #expect(decoded.width == video.width && decoded.height == video.height)
            #expect(decoded.timestamp == source.timestamp)
            total += lumaPSNR(source, decoded)
        }
        return total / Double(frames)
    }

    @Test(arguments: codecs)
    func roundTripQuality(codec: Codec) throws {
        let clean = try Self.meanRoundTripPSNR(codec, video: VPXTestVideo(width: 640, height: 360, noise: 2, seed: 7),
                                               bitrate: 800_000, frames: 60)
        let noisy = try Self.meanRoundTripPSNR(codec, video: VPXTestVideo(width: 640, height: 360, noise: 24, seed: 8),
                                               bitrate: 800_000, frames: 60)
        // Measured (libvpx 1.12): VP8 43.5 / 25.3 dB, VP9 44.0 / 25.3 dB. ±24 noise alone is
        // ≈25.1 dB, so on noisy content the codec keeps the picture and sheds the noise.
        #expect(clean >= 30)
        #expect(noisy >= 23.5)
    }
}

extension VPXEncoderTests {
    @Test(arguments: codecs)
    func keyframesOnlyAtStartAndOnRequest(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 3)
        let settings = VideoEncoderSettings(width: 320, height: 240, bitrate: 500_000, keyframeInterval: 0)
        let encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
        let requests: Set<Int> = [10, 11, 25]
        var encoded = EncodedFrame(codec: codec)
        for index in 0..<40 {
            if requests.contains(index) { encoder.requestKeyframe() }
            #expect(try encoder.encode(video.frame(index), into: &encoded))
            let expected = index == 0 || requests.contains(index)
            #expect(encoded.isKeyframe == expected, "frame \(index)")
            #expect(bitstreamIsKeyframe(encoded.data, codec: codec) == expected, "frame \(index)")
        }
    }

    @Test(arguments: codecs)
    func keyframeIntervalIsHonoured(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 4)
        let settings = VideoEncoderSettings(width: 320, height: 240, bitrate: 500_000, keyframeInterval: 15)
        let encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
        var keyframes: [Int] = []
        var encoded = EncodedFrame(codec: codec)
        for index in 0..<46 where try encoder.encode(video.frame(index), into: &encoded) && encoded.isKeyframe {
            keyframes.append(index)
        }
        #expect(keyframes == [0, 15, 30, 45])
    }

    /// Reusing one output frame: its buffer stops growing, and the descriptor fields advance per frame.
    @Test(arguments: codecs)
    func reusesOutputBuffersAndNumbersPictures(codec: Codec) throws {
        let video = VPXTestVideo(width: 320, height: 240, seed: 5)
        let settings = VideoEncoderSettings(width: 320, height: 240, bitrate: 400_000)
        let encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false, firstPictureID: 0x7FFE)
        var encoded = EncodedFrame(codec: codec)
        var capacities: [Int] = []
        var pictureIDs: [UInt16] = []
        var tl0Indices: [UInt8] = []
        for index in 0..<100 {
            #expect(try encoder.encode(video.frame(index), into: &encoded))
            capacities.append(encoded.data.capacity)
            #expect(encoded.codec == codec && encoded.width == 320 && encoded.height == 240)
            #expect(encoded.timestamp == video.timestamp(index))
            #expect(encoded.duration == .frameInterval(fps: 30))
            switch codec {
            case .vp8:
                let info = try #require(encoded.vp8)
                #expect(encoded.vp9 == nil)
                pictureIDs.append(info.pictureID)
                tl0Indices.append(info.tl0PictureIndex)
                #expect(info.temporalLayer == 0)
                // Token data starts after the 3-byte tag (+7 on keyframes) and the first partition.
                let tag = Int(encoded.data[0]) | Int(encoded.data[1]) << 8 | Int(encoded.data[2]) << 16
                let expected = (encoded.isKeyframe ? 10 : 3) + (tag >> 5)
                #expect(info.partitionOffsets == [0, expected])
                #expect(expected < encoded.data.count)
            default:
                let info = try #require(encoded.vp9)
                #expect(encoded.vp8 == nil)
                pictureIDs.append(info.pictureID)
                tl0Indices.append(info.tl0PictureIndex)
                #expect(info.interPicturePredicted == !encoded.isKeyframe)
            }
        }
        // The encoder grows the output once to its keyframe cap, so the first frame's capacity lasts.
        #expect(Set(capacities).count == 1, "capacity kept changing: \(capacities)")
        #expect(pictureIDs[0] == 0x7FFE && pictureIDs[1] == 0x7FFF && pictureIDs[2] == 0 && pictureIDs[99] == 97)
        #expect(tl0Indices == (0..<100).map { UInt8($0) })
    }

    @Test(arguments: codecs)
    func dropsFramesOnlyWhenAllowed(codec: Codec) throws {
        let video = VPXTestVideo(width: 640, height: 360, noise: 24, seed: 6)
        let settings = VideoEncoderSettings(width: 640, height: 360, bitrate: 60_000)
        for allowed in [true, false] {
            let encoder = try VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: allowed)
            var encoded = EncodedFrame(codec: codec)
            var dropped = 0
            for index in 0..<30 {
                let previous = encoded.data
                if try !encoder.encode(video.frame(index), into: &encoded) {
                    dropped += 1
                    #expect(encoded.data == previous, "a dropped frame must leave the output alone")
                }
            }
            // Measured: VP8 drops 26 of 30, VP9 24 of 30 at 60 kbps on this noisy 640×360 content.
            #expect(allowed ? dropped > 0 : dropped == 0)
        }
    }

    @Test(arguments: codecs)
    func rejectsFramesOfAnotherSize(codec: Codec) throws {
        let encoder = try VPXEncoder(codec: codec, settings: VideoEncoderSettings(width: 320, height: 240))
        var encoded = EncodedFrame(codec: codec)
        let error = try #require(throws: VPXError.self) {
            try encoder.encode(VPXTestVideo(width: 640, height: 360).frame(0), into: &encoded)
        }
        #expect(error.code == .invalidParameter && error.operation == .encode)
        #expect(error.detail?.contains("640x360") == true)
        #expect(encoded.data.isEmpty)
    }

    @Test func rejectsBadSettings() throws {
        let good = VideoEncoderSettings(width: 320, height: 240)
        var zeroRate = good; zeroRate.bitrate = 0
        var hugeWidth = good; hugeWidth.width = 20_000
        var noThreads = good; noThreads.threads = 0
        var badSpeed = good; badSpeed.speed = 40
        for (codec, settings) in [(Codec.h264, good), (.vp8, zeroRate), (.vp9, hugeWidth), (.vp8, noThreads), (.vp9, badSpeed)] {
            let error = try #require(throws: VPXError.self) { _ = try VPXEncoder(codec: codec, settings: settings) }
            #expect(error.code == .invalidParameter, "\(error)")
            #expect(!error.message.isEmpty)
        }
        let encoder = try VPXEncoder(codec: .vp8, settings: good)
        #expect(throws: VPXError.self) { try encoder.setBitrate(-5) }
        #expect(encoder.settings.bitrate == good.bitrate)
    }
}
