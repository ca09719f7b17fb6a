import Testing
import Confer
import ConferMedia
import ConferJobs

@Suite struct SnapshotJobTests {
    /// The snapshot at `path` back as an I420 frame.
    func decoded(_ path: String) throws -> VideoFrame {
        let image = try PNGFile.readImage(from: path)
        return try image.videoFrame(pool: FramePool(width: image.width, height: image.height, capacity: 1))
    }

    @Test func firstFrameHasTheClipsSizeAndColour() throws {
        let dir = try TemporaryDirectory("snap")
        let clip = try dir.clip("in.y4m", index: 2, frames: 10)
        let png = dir.file("frame.png")
        let report = try SnapshotJob.run(input: clip, output: png)
        #expect(report.frameIndex == 0 && report.width == 320 && report.height == 180 && report.bytes > 0)

        let image = try PNGFile.readImage(from: png)
        #expect(image.width == 320 && image.height == 180)
        let frame = try decoded(png)
        let whole = PixelRect(width: 320, height: 180)
        let color = TestPatternSource.readColor(from: frame, in: whole)
        #expect(color.distance(to: TestPalette.color(at: 2)) < 6, "\(color)")
        #expect(TestPatternSource.readFrameCounter(from: frame) == 0)
    }

    @Test(arguments: [(0.2, 6), (0.25, 7), (0.3, 9)])
    func atPicksTheFrameOnScreen(seconds: Double, frame expected: Int) throws {
        let dir = try TemporaryDirectory("snap-at")
        let clip = try dir.clip("in.y4m", index: 0, frames: 10)
        let png = dir.file("frame.png")
        let report = try SnapshotJob.run(input: clip, output: png, at: seconds)
        #expect(report.frameIndex == expected)
        #expect(TestPatternSource.readFrameCounter(from: try decoded(png)) == expected)
    }

    @Test func compressedInputIsDecodedToTheFrame() throws {
        let dir = try TemporaryDirectory("snap-ivf")
        let clip = try dir.clip("in.y4m", index: 1, frames: 10)
        let ivf = dir.file("in.ivf")
        _ = try Transcoder.run(input: clip, output: ivf, options: TranscodeOptions(bitrateKbps: 800))
        let png = dir.file("frame.png")
        _ = try SnapshotJob.run(input: ivf, output: png, at: 0.2)
        let frame = try decoded(png)
        #expect(TestPatternSource.readFrameCounter(from: frame) == 6)
        #expect(TestPatternSource.readColor(from: frame, in: PixelRect(width: 320, height: 180))
            .distance(to: TestPalette.color(at: 1)) < 8)
    }

    @Test func pastTheEndAndBadOutputsAreErrors() throws {
        let dir = try TemporaryDirectory("snap-bad")
        let clip = try dir.clip("in.y4m", index: 0, frames: 3)
        let error = #expect(throws: JobError.self) { try SnapshotJob.run(input: clip, output: dir.file("a.png"), at: 5) }
        #expect(error?.description.contains("past its end") == true)
        #expect(#expect(throws: JobError.self) { try SnapshotJob.run(input: clip, output: dir.file("a.jpg")) }?.kind == .invalidOptions)
        #expect(throws: JobError.self) { try SnapshotJob.run(input: clip, output: dir.file("a.png"), at: -1) }
        #expect(throws: (any Error).self) { try SnapshotJob.run(input: dir.file("missing.y4m"), output: dir.file("a.png")) }
    }
}
