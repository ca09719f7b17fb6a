import Foundation
import Testing
@testable import ConferMedia

/// Helpers shared by the format tests: temp files, FFmpeg, synthetic media.
enum Support {
    /// Whether FFmpeg's tools are installed (interop tests need them).
    static let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

    /// A fresh directory for one test's files, removed by the caller with `cleanUp`.
    static func makeTempDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("confer-media-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func cleanUp(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct ToolError: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `/usr/bin/<tool>` and returns its standard output; throws if it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting so a chatty tool cannot block on a full pipe.
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolError(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self).suffix(800))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Runs ffmpeg quietly, overwriting outputs.
    static func ffmpeg(_ arguments: [String]) throws {
        try run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
    }

    /// One value from `ffprobe -show_entries stream=<entry>` on the first stream.
    static func ffprobe(_ path: String, entry: String, countFrames: Bool = false) throws -> String {
        var arguments = ["-v", "error", "-select_streams", "0", "-show_entries", "stream=\(entry)", "-of", "default=nw=1:nk=1"]
        if countFrames { arguments.insert("-count_frames", at: 0) }
        return try run("ffprobe", arguments + [path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// A frame of seeded random pixels.
    static func randomFrame(width: Int, height: Int, random: inout SeededRandom, timestamp: Timestamp = .zero) -> VideoFrame {
        let frame = MutableVideoFrame(layout: FrameLayout(width: width, height: height), timestamp: timestamp)
        for plane in [frame.y, frame.u, frame.v] {
            for y in 0..<plane.height {
                for x in 0..<plane.width { plane[x, y] = UInt8(truncatingIfNeeded: random.next()) }
            }
        }
        return frame.finish()
    }

    /// Whether two frames have the same size and visible pixels.
    static func samePixels(_ a: VideoFrame, _ b: VideoFrame) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        for (p, q) in zip(a.planes, b.planes) {
            for y in 0..<p.height where !p.row(y).elementsEqual(q.row(y)) { return false }
        }
        return true
    }

    /// A sine tone as interleaved Int16 samples (the same on every channel).
    static func sine(frequency: Double, sampleRate: Int, frames: Int, channels: Int, amplitude: Double = 12_000) -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for i in 0..<frames {
            let value = Int16(amplitude * sin(2 * .pi * frequency * Double(i) / Double(sampleRate)))
            for _ in 0..<channels { samples.append(value) }
        }
        return samples
    }

    /// Frequency of channel 0 in Hz from rising zero crossings over `samples` at 48 kHz.
    static func dominantFrequency(_ samples: [Int16], channels: Int) -> Double {
        let mono = stride(from: 0, to: samples.count, by: channels).map { Int(samples[$0]) }
        var crossings: [Int] = []
        for i in 1..<mono.count where mono[i - 1] < 0 && mono[i] >= 0 { crossings.append(i) }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(conferSampleRate) / Double(last - first)
    }

    /// Expects `body` to throw a MediaFileError of `kind`, and returns it for more checks.
    @discardableResult
    static func expectError(_ kind: MediaFileError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> Void) -> MediaFileError? {
        do {
            try body()
            Issue.record("expected a \(kind) error, but nothing was thrown", sourceLocation: sourceLocation)
            return nil
        } catch let error as MediaFileError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("expected a MediaFileError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

/// Builds WAV headers by hand, to test layouts Confer's writer never produces.
struct WAVBuilder {
    var formatTag: UInt16 = 1
    var channels = 1
    var sampleRate = 48_000
    var bitsPerSample = 16
    var extensibleSubformat: UInt16?
    var extraChunkBeforeFormat = false
    var dataSizeOverride: UInt32?

    func build(payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        func tag(_ s: String) { out += Array(s.utf8) }
        tag("RIFF"); u32(0); tag("WAVE")
        if extraChunkBeforeFormat { tag("LIST"); u32(5); out += [1, 2, 3, 4, 5, 0] }
        let blockAlign = UInt16(channels * bitsPerSample / 8)
        tag("fmt ")
        u32(extensibleSubformat == nil ? 16 : 40)
        u16(extensibleSubformat == nil ? formatTag : 0xFFFE)
        u16(UInt16(channels)); u32(UInt32(sampleRate)); u32(UInt32(sampleRate) * UInt32(blockAlign))
        u16(blockAlign); u16(UInt16(bitsPerSample))
        if let sub = extensibleSubformat {
            u16(22); u16(UInt16(bitsPerSample)); u32(channels == 1 ? 4 : 3)
            u16(sub); out += WAVInfo.subformatGUIDTail
        }
        tag("data"); u32(dataSizeOverride ?? UInt32(payload.count))
        out += payload
        let riffSize = UInt32(out.count - 8)
        for i in 0..<4 { out[4 + i] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(i))) }
        return out
    }

    static func pcm16(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    static func float32(_ samples: [Float]) -> [UInt8] {
        samples.flatMap { s in (0..<4).map { UInt8(truncatingIfNeeded: s.bitPattern >> (8 * UInt32($0))) } }
    }
}

/// Writes bits most-significant first, with Exp-Golomb codes, to build bitstream headers.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func bit(_ b: Bool) {
        if bitCount % 8 == 0 { bytes.append(0) }
        if b { bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8) }
        bitCount += 1
    }

    mutating func bits(_ value: UInt32, _ count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) { bit((value >> UInt32(i)) & 1 == 1) }
    }

    mutating func ue(_ value: UInt32) {
        let v = UInt64(value) + 1
        let length = 64 - v.leadingZeroBitCount
        bits(0, length - 1)
        for i in stride(from: length - 1, through: 0, by: -1) { bit((v >> UInt64(i)) & 1 == 1) }
    }

    mutating func se(_ value: Int32) { ue(value > 0 ? UInt32(2 * value - 1) : UInt32(-2 * Int64(value))) }

    /// rbsp_trailing_bits: a one bit, then zeros to the byte boundary.
    mutating func trailing() {
        bit(true)
        while bitCount % 8 != 0 { bit(false) }
    }
}
