import Testing
import Confer
import ConferMedia

@Suite struct TranscodeTests {
    @Test(arguments: [(Codec.vp8, "ivf"), (.vp9, "ivf"), (.h264, "h264")])
    func videoRoundTripKeepsEveryFrameAndQuality(codec: Codec, ext: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 320, height: 240, seconds: 1, index: 5)
        let encoded = dir + "/clip.\(ext)"
        let encode = try Transcoder.run(input: source, output: encoded,
                                        options: TranscodeOptions(codec: codec, bitrateKbps: 500))
        #expect(encode.unitsRead == 30)
        #expect(encode.unitsWritten == 30)
        #expect(encode.outputCodec == codec.rawValue)
        #expect(encode.keyframes == 1)
        let info = try MediaFileInfo.probe(path: encoded)
        #expect(info.codec == codec.rawValue)
        #expect(info.width == 320 && info.height == 240)

        let decoded = dir + "/decoded.y4m"
        let decode = try Transcoder.run(input: encoded, output: decoded)
        #expect(decode.unitsWritten == 30)
        let quality = try Comparison.run(reference: source, test: decoded, perFrame: true)
        #expect(quality.frames == 30)
        #expect(quality.summary.meanPSNR.y >= 35)
        #expect(quality.summary.meanSSIM.frame >= 0.97)
        #expect(quality.perFrame?.count == 30)
    }

    @Test func scalingAndFrameRateConversion() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 320, height: 240, frameRate: 30, seconds: 1)
        let out = dir + "/small.y4m"
        let report = try Transcoder.run(input: source, output: out,
                                        options: TranscodeOptions(size: (160, 120), frameRate: 15))
        #expect(report.unitsRead == 30)
        #expect(report.unitsWritten == 15)
        let reader = try VideoFileReader(path: out)
        #expect(reader.width == 160 && reader.height == 120)
        #expect(reader.frameRate == 15)
        // Every other source frame survives: the counter strip reads 0, 2, 4, …
        var counters: [Int?] = []
        while let frame = try reader.next() { counters.append(TestPatternSource.readFrameCounter(from: frame)) }
        #expect(counters == stride(from: 0, to: 30, by: 2).map { $0 })
    }

    @Test func frameRateUpConversionRepeatsFrames() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 160, height: 120, frameRate: 10, seconds: 1)
        let out = dir + "/up.y4m"
        let report = try Transcoder.run(input: source, output: out, options: TranscodeOptions(frameRate: 30))
        #expect(report.unitsWritten == 30)
        let reader = try VideoFileReader(path: out)
        var counters: [Int?] = []
        while let frame = try reader.next() { counters.append(TestPatternSource.readFrameCounter(from: frame)) }
        #expect(counters == (0..<10).flatMap { [$0, $0, $0] })
    }

    @Test func opusRoundTripKeepsTheTone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/tone.wav"
        _ = try Generator.run(output: source, seconds: 2, index: 4, channels: 2)
        let encoded = dir + "/tone.opus"
        let encode = try Transcoder.run(input: source, output: encoded, options: TranscodeOptions(bitrateKbps: 48))
        #expect(encode.unitsRead == 96_000)
        #expect(encode.outputCodec == "opus")
        let decoded = dir + "/tone.wav.out.wav"
        let decode = try Transcoder.run(input: encoded, output: decoded)
        #expect(decode.unitsWritten == 96_000)
        let reader = try AudioFileReader(path: decoded)
        #expect(reader.channels == 2)
        // The tone's frequency dominates the decoded audio during talk spurts.
        var frame = AudioFrame(silenceOf: 4800, channels: 2)
        var mono: [Int16] = []
        while try reader.read(into: &frame, frameCount: 4800) {
            for i in stride(from: 0, to: frame.samples.count, by: 2) { mono.append(frame.samples[i]) }
        }
        let tone = ToneSource.frequency(forIndex: 4)
        let atTone = AudioAnalysis.goertzelPower(mono, frequency: tone)
        let offTone = AudioAnalysis.goertzelPower(mono, frequency: tone * 1.5)
        #expect(atTone > 100 * offTone)
    }

    @Test func durationLimitStopsEarly() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 160, height: 120, seconds: 1)
        let report = try Transcoder.run(input: source, output: dir + "/short.ivf",
                                        options: TranscodeOptions(maxDuration: 0.5))
        #expect(report.unitsWritten == 15)
    }

    @Test func badRequestsAreClearErrors() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 160, height: 120, seconds: 0.2)
        // An output name or codec the user chose is an option to fix (the CLI's 64)...
        for (output, codec) in [("x.mp4", nil), ("x.h264", Codec.vp8), ("x.ivf", .h264), ("x.y4m", .vp8)] as [(String, Codec?)] {
            let error = #expect(throws: JobError.self) { try Transcoder.run(input: source, output: dir + "/" + output, options: TranscodeOptions(codec: codec)) }
            #expect(error?.kind == .invalidOptions, "\(output) \(String(describing: codec)): \(String(describing: error))")
        }
        // ...and so are a video codec for an audio input and an audio name for video...
        let tone = dir + "/tone.wav"
        _ = try Generator.run(output: tone, seconds: 0.2)
        #expect(#expect(throws: JobError.self) { try Transcoder.run(input: tone, output: dir + "/x.ivf", options: TranscodeOptions(codec: .vp8)) }?.kind == .invalidOptions)
        #expect(#expect(throws: JobError.self) { try Transcoder.run(input: source, output: dir + "/x.wav") }?.kind == .invalidOptions)
        // ...while an input file of the wrong kind is the file's fault (the CLI's 1).
        #expect(#expect(throws: JobError.self) { try VideoFileReader(path: tone) }?.kind == .unsupportedFormat)
        #expect(#expect(throws: JobError.self) { try AudioFileReader(path: source) }?.kind == .unsupportedFormat)
        #expect(throws: MediaFileError.self) { try Transcoder.run(input: dir + "/missing.y4m", output: dir + "/x.ivf") }
        let garbage = dir + "/garbage.ivf"
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) })))
        #expect(throws: MediaFileError.self) { try Transcoder.run(input: garbage, output: dir + "/x.y4m") }
    }

    @Test func corruptFramesInAFileAreSkippedAndCounted() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = dir + "/source.y4m"
        _ = try Generator.run(output: source, width: 160, height: 120, seconds: 1)
        let encoded = dir + "/clip.ivf"
        _ = try Transcoder.run(input: source, output: encoded, options: TranscodeOptions(codec: .vp8, keyframeInterval: 15))
        let original = try ivfPayloads(encoded)
        try #require(original.count == 30)
        // Damage frame 5's payload in the file: the decoder skips until the keyframe at 15.
        var bytes = [UInt8](FileManager.default.contents(atPath: encoded)!)
        // An IVF file header is 32 bytes; each frame has a 12-byte header (a little-endian
        // size, then the timestamp) before its payload. The size needs its parentheses: `|`
        // and `+` share a precedence level in Swift, so `12 + a | b << 8` is `(12 + a) | b << 8`,
        // an offset inside the wrong frame whenever `12 + a` carries into the next byte.
        var offset = 32
        for _ in 0..<5 { offset += 12 + (Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16) }
        let size = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
        #expect(size == original[5].count)
        for i in 0..<size where i > 3 { bytes[offset + 12 + i] = UInt8(truncatingIfNeeded: i &* 131) }
        #expect(FileManager.default.createFile(atPath: encoded, contents: Data(bytes)))
        // Frame 5, and only frame 5, was damaged; the file's framing is intact.
        let damaged = try ivfPayloads(encoded)
        #expect(damaged.count == 30)
        #expect(damaged.indices.filter { damaged[$0] != original[$0] } == [5])
        let reader = try VideoFileReader(path: encoded)
        var decoded = 0
        while try reader.next() != nil { decoded += 1 }
        #expect(reader.encodedFramesRead == 30)
        #expect(reader.framesNotDecoded >= 1)
        #expect(reader.framesNotDecoded <= 10)
        #expect(decoded == 30 - reader.framesNotDecoded)
    }

    /// The payload of every frame of an IVF file, in order.
    func ivfPayloads(_ path: String) throws -> [[UInt8]] {
        let reader = try IVFReader(path: path)
        var frame = EncodedFrame(codec: .vp8)
        var payloads: [[UInt8]] = []
        while try reader.read(into: &frame) { payloads.append(frame.data) }
        return payloads
    }
}

import Foundation
import ConferJobs
import ConferCodecs
