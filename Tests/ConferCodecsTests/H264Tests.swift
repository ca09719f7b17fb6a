import ConferCodecs
import ConferMedia
import Testing

/// The NAL unit types found after each Annex-B start code in `data`, found independently of
/// the encoder's own `nalUnits`.
private func scannedNALTypes(_ data: [UInt8]) -> [(headerOffset: Int, type: UInt8)] {
    var result: [(Int, UInt8)] = []
    var i = 0
    while i + 3 < data.count {
        if data[i] == 0, data[i + 1] == 0, data[i + 2] == 1 {
            result.append((i + 3, data[i + 3] & 0x1F))
            i += 3
        } else {
            i += 1
        }
    }
    return result
}

private func startsWithStartCode(_ data: [UInt8]) -> Bool {
    data.starts(with: [0, 0, 0, 1]) || data.starts(with: [0, 0, 1])
}

/// Encodes `count` frames of `video`, returning each access unit and the source picture.
private func encodeClip(_ settings: VideoEncoderSettings, video: inout SyntheticVideo, count: Int,
                        keyframesAt: Set<Int> = []) throws -> [(source: VideoFrame, encoded: EncodedFrame)] {
    var encoder = try X264Encoder(settings: settings)
    var clip: [(VideoFrame, EncodedFrame)] = []
    for index in 0..<count {
        let picture = video.frame(index, fps: settings.frameRate)
        if keyframesAt.contains(index) { encoder.requestKeyframe() }
        var output = EncodedFrame(codec: .h264)
        #expect(try encoder.encode(picture, into: &output), "frame \(index) was dropped")
        clip.append((picture, output))
    }
    return clip
}

/// Mean luma PSNR of decoding `clip` from its start.
private func meanRoundTripPSNR(_ clip: [(source: VideoFrame, encoded: EncodedFrame)]) throws -> Double {
    var decoder = try H264Decoder()
    var total = 0.0
    for (index, item) in clip.enumerated() {
        let decoded = try #require(try decoder.decode(item.encoded), "frame \(index) produced no picture")
        #expect(decoded.width == item.source.width && decoded.height == item.source.height)
        #expect(decoded.timestamp == item.source.timestamp)
        total += lumaPSNR(item.source, decoded)
    }
    return total / Double(clip.count)
}

@Suite("H.264 (x264 + libavcodec)")
struct H264Tests {
    @Test("Round trip of clean synthetic video at 640×360, 800 kb/s keeps ≥ 30 dB")
    func roundTripSynthetic() throws {
        var video = SyntheticVideo(width: 640, height: 360, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 640, height: 360, bitrate: 800_000), video: &video, count: 60)
        let psnr = try meanRoundTripPSNR(clip)
        #expect(psnr >= 30, "mean Y-PSNR \(psnr) dB")
    }

    @Test("Round trip of noisy synthetic video keeps the measured quality")
    func roundTripNoisy() throws {
        // Noise of ±24 per pixel is close to incompressible at 800 kb/s: measured 25.05 dB
        // mean Y-PSNR (ultrafast, x264 build 164); the bound leaves a 1 dB margin.
        var video = SyntheticVideo(width: 640, height: 360, noiseAmplitude: 24)
        let clip = try encodeClip(VideoEncoderSettings(width: 640, height: 360, bitrate: 800_000), video: &video, count: 60)
        let psnr = try meanRoundTripPSNR(clip)
        #expect(psnr >= 24, "mean Y-PSNR \(psnr) dB")
    }

    @Test("Output is Annex-B with SPS, PPS and IDR first, and nalUnits point at real NAL headers")
    func annexBStructure() throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 320, height: 240, bitrate: 300_000), video: &video, count: 30)
        for (index, item) in clip.enumerated() {
            let frame = item.encoded
            #expect(frame.codec == .h264)
            #expect(startsWithStartCode(frame.data), "AU \(index) does not start with a start code")
            #expect(frame.width == 320 && frame.height == 240)
            let scanned = scannedNALTypes(frame.data)
            #expect(scanned.map(\.headerOffset) == frame.nalUnits.map(\.lowerBound), "AU \(index) NAL ranges")
            #expect(frame.nalUnits.last?.upperBound == frame.data.count)
            for (unit, found) in zip(frame.nalUnits, scanned) {
                #expect(frame.data[unit.lowerBound] & 0x1F == found.type)
                #expect(frame.data[unit.lowerBound - 3..<unit.lowerBound].elementsEqual([0, 0, 1]))
            }
            let types = Set(scanned.map(\.type))
            if index == 0 {
                #expect(frame.isKeyframe)
                #expect(types.isSuperset(of: [7, 8, 5]), "first AU has NAL types \(types)")
                let order = scanned.map(\.type).filter { [7, 8, 5].contains($0) }
                #expect(order.first == 7 && order.dropFirst().first == 8)
                // Constrained baseline: profile_idc 66 with constraint_set1_flag.
                let sps = try #require(frame.nalUnits.first { frame.data[$0.lowerBound] & 0x1F == 7 })
                #expect(frame.data[sps.lowerBound + 1] == 66)
                #expect(frame.data[sps.lowerBound + 2] & 0x40 != 0)
            } else {
                #expect(!frame.isKeyframe, "AU \(index) is a keyframe without a request")
                #expect(types == [1], "AU \(index) has NAL types \(types)")
            }
        }
    }

    @Test("A requested keyframe is the very next frame, with SPS and PPS before it")
    func keyframeOnRequest() throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 320, height: 240, bitrate: 300_000), video: &video,
                                  count: 20, keyframesAt: [9])
        let keyframes = clip.indices.filter { clip[$0].encoded.isKeyframe }
        #expect(keyframes == [0, 9])
        let types = Set(scannedNALTypes(clip[9].encoded.data).map(\.type))
        #expect(types.isSuperset(of: [7, 8, 5]))
        #expect(!scannedNALTypes(clip[10].encoded.data).contains { $0.type == 5 })
    }

    @Test("Bitrate over 10 s stays within 15 % of the target")
    func bitrateOnTarget() throws {
        let settings = VideoEncoderSettings(width: 320, height: 240, bitrate: 400_000)
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 6)
        var encoder = try X264Encoder(settings: settings)
        var output = EncodedFrame(codec: .h264)
        var bytes = 0
        for index in 0..<300 {
            if try encoder.encode(video.frame(index), into: &output) { bytes += output.data.count }
        }
        let rate = Double(bytes * 8) / 10
        #expect(abs(rate - 400_000) <= 0.15 * 400_000, "measured \(rate) b/s")
    }

    @Test("A live bitrate change takes effect")
    func liveBitrateChange() throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 6)
        var encoder = try X264Encoder(settings: VideoEncoderSettings(width: 320, height: 240, bitrate: 600_000))
        var output = EncodedFrame(codec: .h264)
        var firstHalf = 0, secondHalf = 0
        for index in 0..<300 {
            if index == 150 { try encoder.setBitrate(250_000) }
            guard try encoder.encode(video.frame(index), into: &output) else { continue }
            if index < 150 { firstHalf += output.data.count } else { secondHalf += output.data.count }
        }
        #expect(encoder.settings.bitrate == 250_000)
        let before = Double(firstHalf * 8) / 5, after = Double(secondHalf * 8) / 5
        #expect(abs(before - 600_000) <= 0.2 * 600_000, "first half \(before) b/s")
        #expect(abs(after - 250_000) <= 0.2 * 250_000, "second half \(after) b/s")
    }

    @Test("Garbage, fake slices, truncated and zeroed access units are errors, and decoding recovers at the next IDR",
          arguments: ["garbage", "fake slice", "truncated", "zeroed"])
    func badInputRecoversAtIDR(damage: String) throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 320, height: 240, bitrate: 400_000), video: &video,
                                  count: 40, keyframesAt: [25])
        var random = SeededRandom(seed: 264)
        var bad = clip[10].encoded
        switch damage {
        case "garbage":
            bad.data = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case "fake slice":
            // A well-formed P-slice NAL header and noise: passes every check before libavcodec.
            bad.data = [0, 0, 0, 1, 0x41] + (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next() | 0x0101) }
        case "truncated":
            bad.data = Array(bad.data.prefix(bad.data.count / 2))
        default:
            bad.data = [UInt8](repeating: 0, count: bad.data.count)
        }

        var decoder = try H264Decoder()
        for index in 0..<10 { #expect(try decoder.decode(clip[index].encoded) != nil) }
        let awaitingAtStart = decoder.isAwaitingKeyframe  // #expect cannot borrow a non-copyable decoder
        #expect(!awaitingAtStart)
        do {
            let picture = try decoder.decode(bad)
            Issue.record("\(damage) access unit was accepted (picture: \(picture != nil))")
        } catch {
            #expect(error.kind == .corruptData, "\(error)")
            #expect(error.code < 0)
        }
        // Until the IDR, P-frames referring to the lost picture are skipped, never shown.
        for index in 11..<25 {
            #expect(try decoder.decode(clip[index].encoded) == nil, "P-frame \(index) was shown before the IDR")
        }
        let awaitingBeforeIDR = decoder.isAwaitingKeyframe
        #expect(awaitingBeforeIDR)
        var psnr = 0.0
        for index in 25..<40 {
            let picture = try #require(try decoder.decode(clip[index].encoded), "frame \(index) after the IDR")
            psnr += lumaPSNR(clip[index].source, picture)
        }
        let awaitingAfterIDR = decoder.isAwaitingKeyframe
        #expect(!awaitingAfterIDR)
        #expect(psnr / 15 >= 30, "mean Y-PSNR after recovery \(psnr / 15) dB")
    }

    @Test("A decoder joining mid-stream shows nothing until the first IDR (sliced threads on both ends)")
    func joinMidStream() throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 320, height: 240, bitrate: 300_000, threads: 2), video: &video,
                                  count: 16, keyframesAt: [10])
        // Two slice threads give two slices per picture.
        #expect(scannedNALTypes(clip[3].encoded.data).filter { $0.type == 1 }.count == 2)
        var decoder = try H264Decoder(threads: 2)
        for index in 3..<10 { #expect(try decoder.decode(clip[index].encoded) == nil) }
        for index in 10..<16 {
            let picture = try #require(try decoder.decode(clip[index].encoded))
            #expect(lumaPSNR(clip[index].source, picture) >= 30)
        }
    }

    @Test("Parameter sets sent apart from the IDR are used while waiting for it")
    func parameterSetsApart() throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 320, height: 240, bitrate: 300_000), video: &video, count: 3)
        let idr = clip[0].encoded
        let slice = try #require(idr.nalUnits.first { idr.data[$0.lowerBound] & 0x1F == 5 })
        var headers = idr, picture = idr
        headers.data = Array(idr.data[..<(slice.lowerBound - 3)])
        picture.data = Array(idr.data[(slice.lowerBound - 3)...])
        var decoder = try H264Decoder()
        #expect(try decoder.decode(headers) == nil)
        let decoded = try #require(try decoder.decode(picture))
        #expect(lumaPSNR(clip[0].source, decoded) >= 30)
        #expect(try decoder.decode(clip[1].encoded) != nil)
    }

    @Test("The decoder follows a change of resolution at an IDR")
    func resolutionChange() throws {
        var small = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        var large = SyntheticVideo(width: 640, height: 360, noiseAmplitude: 2)
        let first = try encodeClip(VideoEncoderSettings(width: 320, height: 240, bitrate: 300_000), video: &small, count: 4)
        let second = try encodeClip(VideoEncoderSettings(width: 640, height: 360, bitrate: 600_000), video: &large, count: 4)
        var decoder = try H264Decoder()
        var kept: [VideoFrame] = []
        for item in first + second {
            let picture = try #require(try decoder.decode(item.encoded))
            #expect(picture.width == item.source.width && picture.height == item.source.height)
            #expect(lumaPSNR(item.source, picture) >= 30)
            kept.append(picture)
        }
        // Pictures of the old size stay intact after the switch.
        #expect(lumaPSNR(first[3].source, kept[3]) >= 30)

        // A stream declaring more pixels than allowed is refused before it is decoded.
        var capped = try H264Decoder(maxPixelCount: 320 * 240)
        #expect(try capped.decode(first[0].encoded) != nil)
        #expect(throws: AVCodecError.self) { _ = try capped.decode(second[0].encoded) }
    }

    @Test("Pictures are libavcodec's own pooled buffers: reused once released, untouched while held")
    func decodesIntoTheFramePool() throws {
        // 180 rows is not a whole number of macroblocks: libavcodec decodes 192 and crops.
        var video = SyntheticVideo(width: 320, height: 180, noiseAmplitude: 2)
        let clip = try encodeClip(VideoEncoderSettings(width: 320, height: 180, bitrate: 400_000), video: &video, count: 90,
                                  keyframesAt: [45])
        func lumaSum(_ frame: VideoFrame) -> Int {
            var sum = 0
            for y in 0..<frame.height { for byte in frame.y.row(y) { sum = sum &* 31 &+ Int(byte) } }
            return sum
        }

        // Released at once: every picture lands in a recycled buffer, none beyond the pool.
        var decoder = try H264Decoder(poolCapacity: 2)
        for (index, item) in clip.enumerated() {
            let picture = try #require(try decoder.decode(item.encoded), "frame \(index)")
            #expect(lumaPSNR(item.source, picture) >= 30)
            // Not a copy: the picture keeps the decoder's padded allocation.
            #expect(picture.layout.offsetU >= picture.layout.strideY * 192)
        }
        #expect(decoder.poolOverflowCount == 0)

        // Held by the application, past the pool's size: nothing the decoder writes later
        // reaches a held picture (the overflow is counted, not reused).
        var holding = try H264Decoder(poolCapacity: 2)
        var held: [(frame: VideoFrame, sum: Int, source: VideoFrame)] = []
        for item in clip {
            let picture = try #require(try holding.decode(item.encoded))
            held.append((picture, lumaSum(picture), item.source))
        }
        #expect(holding.poolOverflowCount > 0)
        for (index, entry) in held.enumerated() {
            #expect(lumaSum(entry.frame) == entry.sum, "held frame \(index) changed")
            #expect(lumaPSNR(entry.source, entry.frame) >= 30)
        }
        // Two held pictures never share a buffer.
        for index in 1..<held.count { #expect(!held[index].frame.sharesStorage(with: held[index - 1].frame)) }
    }

    @Test("Encoding writes into the caller's buffers instead of replacing them")
    func encodeReusesOutputBuffers() throws {
        var video = SyntheticVideo(width: 320, height: 240, noiseAmplitude: 2)
        var encoder = try X264Encoder(settings: VideoEncoderSettings(width: 320, height: 240, bitrate: 300_000))
        var output = EncodedFrame(codec: .h264)
        output.data.reserveCapacity(1 << 20)
        output.nalUnits.reserveCapacity(16)
        let dataAddress = output.data.withUnsafeBufferPointer { $0.baseAddress }
        let nalAddress = output.nalUnits.withUnsafeBufferPointer { $0.baseAddress }
        for index in 0..<20 {
            #expect(try encoder.encode(video.frame(index), into: &output))
            #expect(output.data.withUnsafeBufferPointer { $0.baseAddress } == dataAddress)
            #expect(output.nalUnits.withUnsafeBufferPointer { $0.baseAddress } == nalAddress)
        }
    }

    @Test("Bad settings and mismatched pictures are typed errors")
    func invalidSettings() throws {
        for bad in [VideoEncoderSettings(width: 321, height: 240), VideoEncoderSettings(width: 320, height: 240, bitrate: 10),
                    VideoEncoderSettings(width: 320, height: 240, frameRate: 0)] {
            do {
                _ = try X264Encoder(settings: bad)
                Issue.record("settings \(bad) were accepted")
            } catch {
                #expect(error.kind == .invalidSettings)
            }
        }
        var encoder = try X264Encoder(settings: VideoEncoderSettings(width: 320, height: 240))
        var video = SyntheticVideo(width: 160, height: 120, noiseAmplitude: 0)
        var output = EncodedFrame(codec: .h264)
        let picture = video.frame(0)
        do {
            _ = try encoder.encode(picture, into: &output)
            Issue.record("a 160×120 picture was accepted by a 320×240 encoder")
        } catch {
            #expect(error.kind == .invalidPicture)
        }
        #expect(throws: X264Error.self) { try encoder.setBitrate(0) }
    }

    @Test("Speeds map to x264 presets, 0 and the default 8 to ultrafast")
    func presetMapping() {
        #expect(X264Preset(speed: 0) == .ultrafast)
        #expect(X264Preset(speed: 8) == .ultrafast)
        #expect(X264Preset(speed: 16) == .ultrafast)
        #expect(X264Preset(speed: 7) == .superfast)
        #expect(X264Preset(speed: 6) == .veryfast)
        #expect(X264Preset(speed: 5) == .faster)
        #expect(X264Preset(speed: 1) == .slower)
    }
}
