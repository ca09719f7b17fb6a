import Testing
@testable import ConferCodecs
import ConferMedia

@Suite struct OggOpusTests {
    /// Pearson correlation of channel 0 of two interleaved signals, over their common length.
    static func correlation(_ a: [Int16], _ b: [Int16], channels: Int) -> Double {
        let n = min(a.count, b.count) / channels
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in 0..<n {
            let x = Double(a[i * channels]), y = Double(b[i * channels])
            sab += x * y; saa += x * x; sbb += y * y
        }
        return sab / (saa * sbb).squareRoot()
    }

    static func energy(_ samples: [Int16]) -> Double {
        samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))
    }

    /// A tone encoded and decoded keeps its exact length (pre-skip and end trimming),
    /// its energy and its shape.
    @Test(arguments: [1, 2])
    func roundTripKeepsLengthAndSignal(channels: Int) throws {
        let frames = 48_000 + 123
        var tone = Support.sine(frequency: 440, sampleRate: 48_000, frames: frames, channels: channels)
        if channels == 2 {
            // Different content per channel, to catch a swapped or downmixed channel.
            for i in 0 ..< frames { tone[2 * i + 1] = tone[2 * i] / 2 }
        }
        let sink = MemoryByteSink()
        let writer = try OggOpusWriter(sink: sink, channels: channels, bitrate: 64_000, complexity: 5)
        var start = 0
        while start < frames {
            let n = min(960, frames - start)
            try writer.write(AudioFrame(samples: Array(tone[start * channels ..< (start + n) * channels]), channels: channels))
            start += n
        }
        try writer.finish()
        #expect(writer.framesWritten == frames)
        #expect(Array(sink.bytes.prefix(4)) == Array("OggS".utf8))

        let reader = try OggOpusReader(bytes: sink.bytes)
        #expect(reader.channels == channels)
        #expect(reader.inputSampleRate == 48_000)
        #expect(reader.frameCount == frames)
        var decoded: [Int16] = []
        var frame = AudioFrame(samples: [], channels: channels)
        while try reader.read(into: &frame, frameCount: 960) {
            #expect(frame.timestamp.microseconds == Int64(decoded.count / channels) * 1_000_000 / 48_000)
            decoded += frame.samples
        }
        #expect(decoded.count == frames * channels)
        let ratio = Self.energy(decoded) / Self.energy(tone)
        #expect(ratio > 0.8 && ratio < 1.2, "energy ratio \(ratio)")
        #expect(Self.correlation(decoded, tone, channels: channels) > 0.95)
        if channels == 2 {
            let right = stride(from: 1, to: decoded.count, by: 2).map { decoded[$0] }
            let rightIn = stride(from: 1, to: tone.count, by: 2).map { tone[$0] }
            let r = Self.energy(right) / Self.energy(rightIn)
            #expect(r > 0.7 && r < 1.3, "right channel energy ratio \(r)")
        }
    }

    /// A writer finished before any audio still writes a valid, empty stream (and does not
    /// trip libopusenc's assertion on draining an unwritten stream).
    @Test func emptyStreamIsValid() throws {
        let sink = MemoryByteSink()
        try OggOpusWriter(sink: sink, channels: 2).finish()
        let reader = try OggOpusReader(bytes: sink.bytes)
        #expect(reader.channels == 2 && reader.frameCount == 0)
        #expect(try reader.next() == nil)
    }

    @Test func rejectsBadInput() throws {
        Support.expectError(.truncated) { _ = try OggOpusReader(bytes: []) }
        var random = SeededRandom(seed: 31)
        let garbage = (0..<2000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let error = Support.expectError(.malformed) { _ = try OggOpusReader(bytes: garbage) }
        #expect(error?.detail.contains("-132") == true)

        let sink = MemoryByteSink()
        let writer = try OggOpusWriter(sink: sink, channels: 1)
        try writer.write(AudioFrame(samples: Support.sine(frequency: 300, sampleRate: 48_000, frames: 9600, channels: 1), channels: 1))
        try writer.finish()
        // Cut inside the header pages: libopusfile's failure is reported as truncation, with its code.
        let header = Support.expectError(.truncated) { _ = try OggOpusReader(bytes: Array(sink.bytes.prefix(40))) }
        #expect(header?.detail.contains("libopusfile error") == true && header?.offset == 0)
        // Corrupt a byte inside the OpusHead packet: its page checksum fails.
        var corrupt = sink.bytes
        corrupt[30] ^= 0xFF
        Support.expectError(.malformed) { _ = try OggOpusReader(bytes: corrupt) }
        Support.expectError(.unsupported) { _ = try OggOpusWriter(sink: MemoryByteSink(), channels: 3) }
        Support.expectError(.malformed) { try OggOpusWriter(sink: MemoryByteSink(), channels: 1).write(AudioFrame(samples: [1, 2], channels: 2)) }
        Support.expectError(.io) { try writer.write(AudioFrame(samples: [1], channels: 1)) }
    }

    /// Cut mid-stream, a file still decodes its complete pages, then reports `.truncated`.
    @Test func truncatedStreamDecodesWhatIsThereThenFails() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/cut.opus"
        // libopusenc buffers up to a second per page: 3 s leaves whole audio pages before the cut.
        let writer = try OggOpusWriter(path: path, channels: 1)
        for _ in 0..<150 {
            try writer.write(AudioFrame(samples: Support.sine(frequency: 300, sampleRate: 48_000, frames: 960, channels: 1), channels: 1))
        }
        try writer.finish()
        let whole = try Support.bytes(path)
        try Support.write(Array(whole.prefix(whole.count * 2 / 3)), to: path)
        let reader = try OggOpusReader(path: path)
        var count = 0
        let error = Support.expectError(.truncated) {
            while let frame = try reader.next() { count += frame.frameCount }
        }
        #expect(error?.offset != nil)
        #expect(count > 0 && count < 144_000, "decoded \(count)")
    }

    @Test(.enabled(if: Support.hasFFmpeg)) func interopsWithFFmpeg() throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/x.opus"
        try Support.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-c:a", "libopus", path])
        let reader = try OggOpusReader(path: path)
        #expect(reader.channels == 1)
        var decoded: [Int16] = []
        while let frame = try reader.next() { decoded += frame.samples }
        #expect(abs(decoded.count - 48_000) <= 960)
        #expect(abs(Support.dominantFrequency(decoded, channels: 1) - 440) < 2)

        let out = dir + "/ours.opus"
        let writer = try OggOpusWriter(path: out, channels: 2, bitrate: 96_000)
        try writer.write(AudioFrame(samples: Support.sine(frequency: 1000, sampleRate: 48_000, frames: 24_000, channels: 2), channels: 2))
        try writer.finish()
        #expect(try Support.ffprobe(out, entry: "codec_name,sample_rate,channels") == "opus\n48000\n2")
        let wav = dir + "/back.wav"
        try Support.ffmpeg(["-i", out, wav])
        let back = try WAVReader(path: wav)
        #expect(back.info.frameCount == 24_000)
    }
}
