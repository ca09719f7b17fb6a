import Testing
@testable import ConferMedia

@Suite struct WAVTests {
    /// 48 kHz audio written and read back is sample-exact, as PCM16 and as float32.
    @Test(arguments: [(1, WAVSampleFormat.pcm16), (2, .pcm16), (1, .float32), (2, .float32)])
    func roundTripIsExact(channels: Int, format: WAVSampleFormat) throws {
        var random = SeededRandom(seed: 21)
        let samples = (0 ..< 4000 * channels).map { _ in Int16(truncatingIfNeeded: random.next()) } + [.min, .max, 0, -1].flatMap { Array(repeating: $0, count: channels) }
        let sink = MemoryByteSink()
        let writer = try WAVWriter(sink: sink, channels: channels, sampleFormat: format)
        // Written in uneven blocks to check the writer's bookkeeping.
        var start = 0
        for size in [1, 999, 3000, 4] {
            try writer.write(AudioFrame(samples: Array(samples[start * channels ..< (start + size) * channels]), channels: channels))
            start += size
        }
        try writer.finish()

        let reader = try WAVReader(bytes: sink.bytes)
        #expect(reader.info.sampleRate == 48_000 && reader.info.channels == channels && reader.info.sampleFormat == format)
        #expect(reader.info.frameCount == 4004)
        #expect(reader.outputFrameCount == 4004)
        var read: [Int16] = []
        var expectedTime: Int64 = 0
        while let frame = try reader.next(frameCount: 960) {
            #expect(frame.timestamp.microseconds == expectedTime)
            expectedTime += Int64(frame.frameCount) * 1_000_000 / 48_000
            read += frame.samples
        }
        #expect(read == samples)
    }

    /// A 1 kHz tone at 44.1 kHz comes out at 48 kHz: 48 000 samples per second (within 1%)
    /// and still 1 kHz.
    @Test(arguments: [WAVSampleFormat.pcm16, .float32])
    func resamples44100To48000(format: WAVSampleFormat) throws {
        let tone = Support.sine(frequency: 1000, sampleRate: 44_100, frames: 44_100, channels: 2)
        var builder = WAVBuilder(channels: 2, sampleRate: 44_100)
        let payload: [UInt8]
        if format == .pcm16 {
            payload = WAVBuilder.pcm16(tone)
        } else {
            builder.formatTag = 3
            builder.bitsPerSample = 32
            payload = WAVBuilder.float32(tone.map { Float($0) / 32768 })
        }
        let reader = try WAVReader(bytes: builder.build(payload: payload))
        #expect(reader.info.sampleRate == 44_100)
        #expect(reader.info.duration == .seconds(1))
        #expect(reader.outputFrameCount == 48_000)
        var out: [Int16] = []
        var frame = AudioFrame(samples: [], channels: 2)
        frame.samples.reserveCapacity(1920)
        while try reader.read(into: &frame, frameCount: 960) { out += frame.samples }
        #expect(abs(out.count / 2 - 48_000) <= 480)
        let frequency = Support.dominantFrequency(out, channels: 2)
        #expect(abs(frequency - 1000) < 2, "measured \(frequency) Hz")
        // Amplitude survives (no gain change) and channels stay identical.
        let peak = out.map { abs(Int($0)) }.max() ?? 0
        #expect(abs(peak - 12_000) < 300)
        #expect(stride(from: 0, to: out.count, by: 2).allSatisfy { out[$0] == out[$0 + 1] })
    }

    @Test func readsExtensibleAndSkipsUnknownChunks() throws {
        let samples: [Int16] = [1, -2, 300, -400, 5000, -6000]
        let bytes = WAVBuilder(channels: 2, extensibleSubformat: 1, extraChunkBeforeFormat: true).build(payload: WAVBuilder.pcm16(samples))
        let reader = try WAVReader(bytes: bytes)
        #expect(reader.info.isExtensible && reader.info.channels == 2 && reader.info.frameCount == 3)
        #expect(try reader.next()?.samples == samples)
        #expect(try reader.next() == nil)
        // Streamed WAV with an unknown (0xFFFFFFFF) data size reads to the end.
        let streamed = WAVBuilder(dataSizeOverride: 0xFFFF_FFFF).build(payload: WAVBuilder.pcm16(samples))
        let streamedReader = try WAVReader(bytes: streamed)
        #expect(try streamedReader.next()?.samples == samples)
    }

    @Test func rejectsBadInput() {
        let one = WAVBuilder.pcm16([1, 2, 3, 4])
        Support.expectError(.truncated) { _ = try WAVReader(bytes: []) }
        Support.expectError(.truncated) { _ = try WAVReader(bytes: Array(WAVBuilder().build(payload: one).prefix(30))) }
        Support.expectError(.malformed) { _ = try WAVReader(bytes: Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8)) }
        Support.expectError(.unsupported) { _ = try WAVReader(bytes: Array("RIFX\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) }
        Support.expectError(.unsupported) { _ = try WAVReader(bytes: WAVBuilder(channels: 3).build(payload: one)) }
        Support.expectError(.malformed) { _ = try WAVReader(bytes: WAVBuilder(channels: 0).build(payload: one)) }
        Support.expectError(.unsupported) { _ = try WAVReader(bytes: WAVBuilder(bitsPerSample: 24).build(payload: one)) }
        Support.expectError(.unsupported) { _ = try WAVReader(bytes: WAVBuilder(formatTag: 6, bitsPerSample: 8).build(payload: one)) }
        Support.expectError(.unsupported) { _ = try WAVReader(bytes: WAVBuilder(extensibleSubformat: 2).build(payload: one)) }
        Support.expectError(.malformed) { _ = try WAVReader(bytes: WAVBuilder(sampleRate: 0).build(payload: one)) }
        Support.expectError(.unsupported) { _ = try WAVReader(bytes: WAVBuilder(sampleRate: 5_000_000).build(payload: one)) }
        var random = SeededRandom(seed: 8)
        Support.expectError(.malformed) { _ = try WAVReader(bytes: (0..<500).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }
        // Data chunk before the fmt chunk.
        Support.expectError(.malformed) {
            _ = try WAVReader(bytes: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEdata\u{0}\u{0}\u{0}\u{0}".utf8))
        }
        // A hostile chunk size cannot be skipped past the end.
        Support.expectError(.truncated) {
            _ = try WAVReader(bytes: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEjunk".utf8) + [0xFF, 0xFF, 0xFF, 0x7F, 1, 2, 3])
        }
    }

    /// Data cut short of the size its chunk declares: every whole frame comes out, then `.truncated`.
    @Test func truncatedDataIsAnError() throws {
        let bytes = WAVBuilder(channels: 1).build(payload: WAVBuilder.pcm16(Array(repeating: 7, count: 2000)))
        let reader = try WAVReader(bytes: Array(bytes.dropLast(1001)))
        var frames = 0
        let error = Support.expectError(.truncated) {
            while let frame = try reader.next(frameCount: 480) { frames += frame.frameCount }
        }
        #expect(frames == 1499)
        #expect(error?.detail.contains("1499 of 2000") == true)
        // Resampled, the frames before the cut come out too (at 48 kHz), then the error.
        let resampled = try WAVReader(bytes: Array(WAVBuilder(sampleRate: 24_000).build(payload: WAVBuilder.pcm16(Array(repeating: 7, count: 2000))).dropLast(1001)))
        var out = 0
        Support.expectError(.truncated) {
            while let frame = try resampled.next(frameCount: 480) { out += frame.frameCount }
        }
        #expect(out == 2998)
    }

    @Test func writerRejectsMismatchedFrames() throws {
        let writer = try WAVWriter(sink: MemoryByteSink(), channels: 1)
        Support.expectError(.malformed) { try writer.write(AudioFrame(samples: [1, 2], channels: 2)) }
        Support.expectError(.unsupported) { _ = try WAVWriter(sink: MemoryByteSink(), channels: 6) }
    }

    @Test(.enabled(if: Support.hasFFmpeg)) func readsFFmpegOutput() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/sine.wav"
        try Support.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", path])
        let reader = try WAVReader(path: path)
        #expect(reader.info.sampleRate == 44_100 && reader.info.channels == 1 && reader.info.frameCount == 44_100)
        var out: [Int16] = []
        while let frame = try reader.next() { out += frame.samples }
        #expect(out.count == 48_000)
        let frequency = Support.dominantFrequency(out, channels: 1)
        #expect(abs(frequency - 440) < 1, "measured \(frequency) Hz")

        // Float output from FFmpeg, and a WAV piped through FFmpeg (unknown data size).
        let floatPath = dir + "/float.wav"
        try Support.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=0.5", "-c:a", "pcm_f32le", floatPath])
        let floatReader = try WAVReader(path: floatPath)
        #expect(floatReader.info.sampleFormat == .float32 && floatReader.info.frameCount == 24_000)
        var count = 0
        while let frame = try floatReader.next() { count += frame.frameCount }
        #expect(count == 24_000)
    }

    @Test(.enabled(if: Support.hasFFmpeg)) func ffprobeReadsWhatWeWrite() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        for format in [WAVSampleFormat.pcm16, .float32] {
            let path = dir + "/\(format).wav"
            let writer = try WAVWriter(path: path, channels: 2, sampleFormat: format)
            try writer.write(AudioFrame(samples: Support.sine(frequency: 1000, sampleRate: 48_000, frames: 12_000, channels: 2), channels: 2))
            try writer.finish()
            let codec = format == .pcm16 ? "pcm_s16le" : "pcm_f32le"
            #expect(try Support.ffprobe(path, entry: "codec_name,sample_rate,channels") == "\(codec)\n48000\n2")
            #expect(try Support.ffprobe(path, entry: "duration") == "0.250000")
        }
    }
}
