import ConferCodecs
import ConferMedia
import Testing

/// The resolution ladder in virtual time: down at once, up only after the bitrate has
/// afforded the larger size, with margin, for a second without a break.
@Suite struct VideoResolutionLadderTests {
    @Test func stepsAndTheirBitratesFollowLibwebrtcsLimits() {
        let ladder = VideoResolutionLadder(width: 1280, height: 720, frameRate: 30, startBitrate: 1_500_000)
        #expect(ladder.steps.map { "\($0.width)x\($0.height)" } == ["1280x720", "960x540", "640x360", "480x270", "320x180"])
        #expect(ladder.steps.map(\.minimumBitrate) == [900_000, 500_000, 300_000, 200_000, 0])
        #expect(ladder.current.width == 1280)
        // Half the frame rate needs half the bitrate; between table points it interpolates.
        let fifteen = VideoResolutionLadder(width: 1280, height: 720, frameRate: 15, startBitrate: 0)
        #expect(fifteen.steps[0].minimumBitrate == 450_000)
        #expect(fifteen.current.width == 320)
        let odd = VideoResolutionLadder(width: 800, height: 600, frameRate: 30, startBitrate: 0)
        #expect(odd.steps[0].minimumBitrate > 300_000 && odd.steps[0].minimumBitrate < 500_000)
        #expect(odd.steps.allSatisfy { $0.width % 2 == 0 && $0.height % 2 == 0 })
        // A tiny canvas keeps only the sizes of at least 16 pixels, each once.
        let tiny = VideoResolutionLadder(width: 32, height: 32, frameRate: 30, startBitrate: 0)
        #expect(tiny.steps.map(\.width) == [32, 24, 16])
    }

    @Test func startsAtWhatTheStartBitrateAffordsAndClimbsOnceItHolds() {
        var ladder = VideoResolutionLadder(width: 1280, height: 720, frameRate: 30, startBitrate: 300_000)
        #expect(ladder.current.width == 640)
        // The estimate jumps to 1.5 Mbit/s: 1280x720 needs 900 × 1.15 kbit/s, held for a second.
        var time = Timestamp.zero
        for _ in 0 ..< 31 {  // 33 ms … 1,023 ms: not yet a second since it was first afforded
            time += .milliseconds(33)
            #expect(ladder.update(bitrate: 1_500_000, at: time) == nil)
        }
        time += .milliseconds(33)
        #expect(ladder.update(bitrate: 1_500_000, at: time)?.width == 1280)
        #expect(ladder.switches == 1)
        #expect(ladder.update(bitrate: 1_500_000, at: time + .milliseconds(33)) == nil)
    }

    @Test func aBreakRestartsTheHoldAndTheMarginKeepsASawingEstimateStill() {
        var ladder = VideoResolutionLadder(width: 1280, height: 720, frameRate: 30, startBitrate: 600_000)
        #expect(ladder.current.width == 960)
        var time = Timestamp.zero
        // Sawing between 950 and 1,100 kbit/s: 1280x720 needs 1,035 to switch up, and the
        // dips below it keep restarting the hold.
        for index in 0 ..< 300 {
            time += .milliseconds(100)
            let bitrate = index % 8 == 7 ? 950_000 : 1_100_000
            #expect(ladder.update(bitrate: bitrate, at: time) == nil)
        }
        #expect(ladder.switches == 0)
    }

    @Test func fallsAtOnceToTheLargestAffordableSizeAndNeverBelowTheSmallest() {
        var ladder = VideoResolutionLadder(width: 1280, height: 720, frameRate: 30, startBitrate: 2_000_000)
        #expect(ladder.update(bitrate: 899_999, at: .seconds(1))?.width == 960)
        #expect(ladder.update(bitrate: 250_000, at: .seconds(1.1))?.width == 480)
        #expect(ladder.update(bitrate: 10_000, at: .seconds(1.2))?.width == 320)
        #expect(ladder.update(bitrate: 1, at: .seconds(1.3)) == nil)
        #expect(ladder.current.width == 320)
        #expect(ladder.switches == 3)
        // Back up to 640x360 (300 × 1.15 = 345 kbit/s) a second after it is afforded.
        #expect(ladder.update(bitrate: 400_000, at: .seconds(2)) == nil)
        #expect(ladder.update(bitrate: 400_000, at: .seconds(3))?.width == 640)
    }

    /// Below what a full-rate thumbnail needs, a ladder that reduces frame rate keeps its
    /// floor size at half the rate, and comes back to full rate as any step up does.
    @Test func theFrameRateStepComesLastAndFollowsTheSameRules() {
        #expect(VideoResolutionLadder.fullFrameRateBitrate(frameRate: 30) == 130_434)
        // A 640×360 camera: the sizes down to the first that needs nothing, then that size at half rate.
        var ladder = VideoResolutionLadder(width: 640, height: 360, frameRate: 30, startBitrate: 75_000, reducesFrameRate: true)
        #expect(ladder.steps.map { "\($0.width)x\($0.height)/\($0.frameRateDivisor)" }
                == ["640x360/1", "480x270/1", "320x180/1", "320x180/2"])
        #expect(ladder.steps.map(\.minimumBitrate) == [300_000, 200_000, 130_434, 0])
        #expect(ladder.current.frameRateDivisor == 2)
        // Full rate needs 130 × 1.15 = 150 kbit/s for a second.
        #expect(ladder.update(bitrate: 149_000, at: .seconds(1)) == nil)
        #expect(ladder.update(bitrate: 150_000, at: .seconds(2)) == nil)
        let full = ladder.update(bitrate: 150_000, at: .seconds(3))
        #expect(full?.width == 320 && full?.frameRateDivisor == 1)
        // Down again at once.
        #expect(ladder.update(bitrate: 130_000, at: .seconds(3.1))?.frameRateDivisor == 2)
        #expect(ladder.switches == 2)
        // A small camera whose full size needs less than the floor: full rate needs the floor
        // at every size, so the steps still fall as the bitrate does.
        let small = VideoResolutionLadder(width: 320, height: 240, frameRate: 30, startBitrate: 100_000, reducesFrameRate: true)
        #expect(small.steps.map { "\($0.width)x\($0.height)/\($0.frameRateDivisor)" } == ["320x240/1", "240x180/1", "240x180/2"])
        #expect(small.steps.map(\.minimumBitrate) == [130_434, 130_434, 0])
        #expect(small.current.frameRateDivisor == 2)
        // Without the option nothing changes: 320×180 is kept at any bitrate.
        let plain = VideoResolutionLadder(width: 640, height: 360, frameRate: 30, startBitrate: 1)
        #expect(plain.steps.allSatisfy { $0.frameRateDivisor == 1 } && plain.current.width == 320)
    }

    /// What a host asks of a tile: twice its pixels' need, floored at a thumbnail's, both in
    /// proportion to the tile's frame rate, so a half-rate tile lands on the half-rate step.
    @Test func aHalfRateTileAsksForLessThanAFullRateThumbnail() {
        #expect(VideoResolutionLadder.bitrate(forShowing: 320, height: 180, frameRate: 30) == 160_000)
        #expect(VideoResolutionLadder.bitrate(forShowing: 256, height: 144, frameRate: 30) == 150_000)
        #expect(VideoResolutionLadder.bitrate(forShowing: 256, height: 144, frameRate: 15) == 75_000)
        let full = VideoResolutionLadder(width: 640, height: 360, frameRate: 30, startBitrate: 150_000, reducesFrameRate: true)
        let half = VideoResolutionLadder(width: 640, height: 360, frameRate: 30, startBitrate: 75_000, reducesFrameRate: true)
        #expect(full.current.frameRateDivisor == 1 && half.current.frameRateDivisor == 2)
    }
}

/// The encoder whose size follows the ladder: real libvpx, pictures always at full size in.
@Suite struct ScalingVideoEncoderTests {
    /// Encodes 2 s of 640×360 at `bitrate` for the first second and `later` after; returns
    /// the decoded sizes in order and the encoder.
    static func run(bitrate: Int, later: Int, adapts: Bool = true) throws -> (sizes: [String], encoder: ScalingVideoEncoder) {
        let encoder = try ScalingVideoEncoder(
            codec: .vp8, settings: VideoEncoderSettings(width: 640, height: 360, frameRate: 30, bitrate: bitrate, speed: -8,
                                                       errorResilient: true),
            adaptsResolution: adapts)
        let decoder = try VPXDecoder(codec: .vp8)
        var video = SyntheticVideo(width: 640, height: 360, noiseAmplitude: 4)
        var output = EncodedFrame(codec: .vp8)
        var sizes: [String] = []
        for index in 0 ..< 75 {
            if index == 30 { try encoder.setBitrate(later) }
            let frame = video.frame(index)
            guard try encoder.encode(frame, at: frame.timestamp, into: &output) else { continue }
            if let picture = try decoder.decode(output) { sizes.append("\(picture.width)x\(picture.height)") }
        }
        return (sizes, encoder)
    }

    @Test func aLowBitrateEncodesSmallerAndARiseComesBackAfterTheHold() throws {
        // 640×360 needs 300 kbit/s: at 150 it is encoded at 320×180 (480×270 needs 200).
        let (sizes, encoder) = try Self.run(bitrate: 150_000, later: 600_000)
        #expect(sizes.first == "320x180")
        // At 1 s the bitrate rises; a second later the size follows, on a keyframe the decoder took.
        #expect(sizes.prefix(60).allSatisfy { $0 == "320x180" })
        #expect(sizes.last == "640x360")
        #expect(sizes.count >= 70)
        #expect(encoder.sizeChanges == 1)
        #expect(encoder.encodedSize == (640, 360))
    }

    /// On the frame-rate step every other picture is left out (and counted), and a rise
    /// to what a full-rate thumbnail needs brings every frame back, at the same size without
    /// a keyframe.
    @Test func theFrameRateStepEncodesEveryOtherPicture() throws {
        let encoder = try ScalingVideoEncoder(
            codec: .vp8, settings: VideoEncoderSettings(width: 640, height: 360, frameRate: 30, bitrate: 80_000, speed: -8,
                                                       errorResilient: true),
            reducesFrameRate: true)
        #expect(encoder.encodedFrameRate == 15)
        let decoder = try VPXDecoder(codec: .vp8)
        var video = SyntheticVideo(width: 640, height: 360, noiseAmplitude: 4)
        var output = EncodedFrame(codec: .vp8)
        var encoded: [Int] = [], keyframes: [Int] = [], sizes: Set<String> = []
        for index in 0 ..< 90 {
            if index == 30 { try encoder.setBitrate(160_000) }
            let frame = video.frame(index)
            guard try encoder.encode(frame, at: frame.timestamp, into: &output) else { continue }
            encoded.append(index)
            if output.isKeyframe { keyframes.append(index) }
            if let picture = try decoder.decode(output) { sizes.insert("\(picture.width)x\(picture.height)") }
        }
        // Frames 0, 2 … 58 (the rise at 1 s is held for a second), then every frame.
        #expect(Array(encoded.prefix(30)) == Array(stride(from: 0, to: 60, by: 2)))
        #expect(Array(encoded.suffix(30)) == Array(60 ..< 90))
        #expect(encoder.framesSkippedForFrameRate == 30)
        #expect(keyframes == [0])
        #expect(sizes == ["320x180"])
        #expect(encoder.encodedFrameRate == 30 && encoder.sizeChanges == 0 && encoder.ladder?.switches == 1)
    }

    @Test func withoutTheLadderTheSizeIsFixed() throws {
        let (sizes, encoder) = try Self.run(bitrate: 150_000, later: 600_000, adapts: false)
        #expect(Set(sizes) == ["640x360"])
        #expect(encoder.sizeChanges == 0)
        #expect(encoder.ladder == nil)
    }
}
