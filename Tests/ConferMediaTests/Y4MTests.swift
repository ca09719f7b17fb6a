import Testing
@testable import ConferMedia

@Suite struct Y4MTests {
    /// Writes seeded random frames (odd size, so strides differ from widths and chroma
    /// rounds up) and reads them back bit-exactly, with timestamps from the frame rate.
    @Test(arguments: [(33, 17), (64, 32)])
    func roundTripInMemory(width: Int, height: Int) throws {
        var random = SeededRandom(seed: 7)
        let frames = (0..<5).map { _ in Support.randomFrame(width: width, height: height, random: &random) }
        let sink = MemoryByteSink()
        let writer = try Y4MWriter(sink: sink, header: Y4MHeader(width: width, height: height, frameRateNumerator: 30000, frameRateDenominator: 1001))
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        #expect(sink.bytes.count == writer.header.line.utf8.count + 5 * (6 + FrameLayout(width: width, height: height).packedByteCount))

        let reader = try Y4MReader(bytes: sink.bytes)
        #expect(reader.header.width == width && reader.header.height == height)
        #expect(reader.header.frameRateNumerator == 30000 && reader.header.frameRateDenominator == 1001)
        #expect(reader.frameCount == 5)
        var index = 0
        while let frame = try reader.next() {
            #expect(Support.samePixels(frame, frames[index]), "frame \(index)")
            #expect(frame.timestamp.microseconds == Int64(index) * 1001 * 1_000_000 / 30000)
            index += 1
        }
        #expect(index == 5)
        #expect(try reader.next() == nil)
    }

    /// Frames read and dropped return to the reader's pool: 20 frames use one buffer.
    @Test func readerRecyclesPooledFrames() throws {
        var random = SeededRandom(seed: 3)
        let sink = MemoryByteSink()
        let writer = try Y4MWriter(sink: sink, header: Y4MHeader(width: 32, height: 16))
        let frame = Support.randomFrame(width: 32, height: 16, random: &random)
        for _ in 0..<20 { try writer.write(frame) }
        let reader = try Y4MReader(bytes: sink.bytes, poolCapacity: 4)
        var count = 0
        while let read = try reader.next() {
            #expect(Support.samePixels(read, frame))
            count += 1
        }
        #expect(count == 20)
        #expect(reader.pool.allocatedCount == 1)
        #expect(reader.pool.overflowCount == 0)
    }

    @Test func roundTripThroughFileAndFFprobe() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/out.y4m"
        var random = SeededRandom(seed: 11)
        let frames = (0..<12).map { _ in Support.randomFrame(width: 48, height: 36, random: &random) }
        let writer = try Y4MWriter(path: path, width: 48, height: 36, frameRateNumerator: 25)
        for frame in frames { try writer.write(frame) }
        try writer.finish()

        let reader = try Y4MReader(path: path)
        #expect(reader.frameCount == 12)
        var index = 0
        while let frame = try reader.next() {
            #expect(Support.samePixels(frame, frames[index]))
            index += 1
        }
        #expect(index == 12)

        if Support.hasFFmpeg {
            #expect(try Support.ffprobe(path, entry: "nb_read_frames", countFrames: true) == "12")
            #expect(try Support.ffprobe(path, entry: "width,height") == "48\n36")
        }
    }

    @Test(.enabled(if: Support.hasFFmpeg)) func readsFFmpegOutput() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/x.y4m"
        try Support.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-pix_fmt", "yuv420p", path])
        let reader = try Y4MReader(path: path)
        #expect(reader.header.width == 320 && reader.header.height == 240)
        #expect(reader.header.frameRate == 30)
        #expect(reader.frameCount == 30)
        var count = 0
        var last = Timestamp.zero
        while let frame = try reader.next() {
            count += 1
            last = frame.timestamp
        }
        #expect(count == 30)
        #expect(last.microseconds == 29 * 1_000_000 / 30)
    }

    @Test func headerParsesEveryField() throws {
        let text = "YUV4MPEG2 W8 H6 F24000:1001 It A10:11 C420mpeg2 XYSCSS=420MPEG2\n"
        let reader = try Y4MReader(bytes: Array(text.utf8))
        #expect(reader.header == Y4MHeader(width: 8, height: 6, frameRateNumerator: 24000, frameRateDenominator: 1001,
                                           interlacing: "t", pixelAspectNumerator: 10, pixelAspectDenominator: 11, chroma: "420mpeg2"))
        #expect(try reader.next() == nil)
        // No C tag means 4:2:0; F0:0 (unknown rate) falls back to 25 fps.
        let plain = try Y4MReader(bytes: Array("YUV4MPEG2 W8 H6 F0:0\n".utf8))
        #expect(plain.header.chroma == "420" && plain.header.frameRate == 25)
    }

    @Test(arguments: ["444", "422", "mono", "420p10", "411"])
    func rejectsOtherChroma(chroma: String) {
        let error = Support.expectError(.unsupported) {
            _ = try Y4MReader(bytes: Array("YUV4MPEG2 W8 H6 F30:1 C\(chroma)\nFRAME\n".utf8))
        }
        #expect(error?.detail.contains("C\(chroma)") == true)
    }

    @Test func rejectsBadInput() {
        // Oversized dimensions: refused before any allocation.
        Support.expectError(.unsupported) { _ = try Y4MReader(bytes: Array("YUV4MPEG2 W16385 H16 F30:1\n".utf8)) }
        // Largest size accepted, but the input is far too short: truncated, not a 400 MB allocation.
        Support.expectError(.truncated) {
            let reader = try Y4MReader(bytes: Array("YUV4MPEG2 W16384 H16384 F30:1\nFRAME\n".utf8))
            _ = try reader.next()
        }
        Support.expectError(.truncated) { _ = try Y4MReader(bytes: []) }
        Support.expectError(.truncated) { _ = try Y4MReader(bytes: Array("YUV4MPEG2 W8 H6".utf8)) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: Array("YUV4MPEG3 W8 H6 F30:1\n".utf8)) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: Array("YUV4MPEG2 H6 F30:1\n".utf8)) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: Array("YUV4MPEG2 W0 H6 F30:1\n".utf8)) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: Array("YUV4MPEG2 W8 H6 F30:0\n".utf8)) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: Array("YUV4MPEG2 W99999999999 H6\n".utf8)) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: Array(repeating: UInt8(ascii: "Y"), count: 5000)) }
        var random = SeededRandom(seed: 5)
        let garbage = (0..<2000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        Support.expectError(.malformed) { _ = try Y4MReader(bytes: garbage) }
    }

    @Test func truncatedLastFrameIsAnError() throws {
        var random = SeededRandom(seed: 9)
        let sink = MemoryByteSink()
        let writer = try Y4MWriter(sink: sink, header: Y4MHeader(width: 16, height: 16))
        for _ in 0..<3 { try writer.write(Support.randomFrame(width: 16, height: 16, random: &random)) }
        let cut = Array(sink.bytes.dropLast(100))
        let reader = try Y4MReader(bytes: cut)
        #expect(reader.frameCount == 2)
        _ = try reader.next()
        _ = try reader.next()
        let error = Support.expectError(.truncated) { _ = try reader.next() }
        #expect(error?.detail.contains("frame 2") == true)

        // A frame header that is not FRAME.
        var bad = sink.bytes
        let second = writer.header.line.utf8.count + 6 + FrameLayout(width: 16, height: 16).packedByteCount
        bad[second] = UInt8(ascii: "X")
        let reader2 = try Y4MReader(bytes: bad)
        _ = try reader2.next()
        Support.expectError(.malformed) { _ = try reader2.next() }
    }

    @Test func writerRejectsMismatchedFrames() throws {
        var random = SeededRandom(seed: 1)
        let writer = try Y4MWriter(sink: MemoryByteSink(), header: Y4MHeader(width: 16, height: 16))
        Support.expectError(.malformed) { try writer.write(Support.randomFrame(width: 8, height: 8, random: &random)) }
        Support.expectError(.unsupported) { _ = try Y4MWriter(sink: MemoryByteSink(), header: Y4MHeader(width: 16, height: 16, chroma: "444")) }
    }
}
