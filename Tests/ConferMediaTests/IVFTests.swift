import Testing
@testable import ConferMedia
import ConferCodecs

@Suite struct IVFTests {
    static let vp8Key: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00]
    static let vp9Key: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00, 0x13, 0xF0]

    /// Frames of seeded random bytes go in and come out bit-exact, with pts-derived timestamps,
    /// keyframe flags read from the bitstream and the length patched into the header: 10 frames
    /// 40 ms apart last 400 ticks of 1 ms, as FFmpeg reads the field.
    @Test(arguments: [Codec.vp8, .vp9])
    func roundTripIsExact(codec: Codec) throws {
        var random = SeededRandom(seed: 4)
        var frames: [EncodedFrame] = []
        for i in 0..<10 {
            let key = i % 4 == 0
            var data = (0 ..< Int(random.next() % 3000) + 20).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let header = codec == .vp8 ? Self.vp8Key : Self.vp9Key
            data.replaceSubrange(0 ..< header.count, with: header)
            if !key { data[0] |= codec == .vp8 ? 0x01 : 0x04 }
            frames.append(EncodedFrame(codec: codec, data: data, isKeyframe: key, timestamp: .milliseconds(Int64(i) * 40)))
        }
        let sink = MemoryByteSink()
        let writer = try IVFWriter(sink: sink, header: IVFHeader(codec: codec, width: 320, height: 240, timebaseNumerator: 1, timebaseDenominator: 1000))
        for frame in frames { try writer.write(frame) }
        try writer.finish()

        let reader = try IVFReader(bytes: sink.bytes)
        #expect(reader.header == IVFHeader(codec: codec, width: 320, height: 240, timebaseNumerator: 1, timebaseDenominator: 1000, length: 400))
        var frame = EncodedFrame(codec: codec)
        var index = 0
        while try reader.read(into: &frame) {
            #expect(frame.data == frames[index].data)
            #expect(frame.isKeyframe == frames[index].isKeyframe)
            #expect(frame.timestamp == frames[index].timestamp)
            #expect(frame.codec == codec && frame.width == 320 && frame.height == 240)
            index += 1
        }
        #expect(index == 10)
    }

    @Test func vp9KeyframeDetectionReadsTheUncompressedHeader() {
        func header(profile: UInt32, showExisting: Bool = false, keyframe: Bool, sync: UInt32 = 0x49_83_42) -> [UInt8] {
            var w = BitWriter()
            w.bits(2, 2)
            w.bits(profile & 1, 1)
            w.bits(profile >> 1, 1)
            if profile == 3 { w.bit(false) }
            w.bit(showExisting)
            if showExisting { w.bits(5, 3); return w.bytes }
            w.bit(!keyframe)
            w.bit(true)
            w.bit(false)
            w.bits(sync, 24)
            w.bits(0, 16)
            return w.bytes
        }
        for profile: UInt32 in 0...3 {
            #expect(VPXBitstream.isKeyframe(header(profile: profile, keyframe: true), codec: .vp9), "profile \(profile)")
            #expect(!VPXBitstream.isKeyframe(header(profile: profile, keyframe: false), codec: .vp9), "profile \(profile)")
            #expect(!VPXBitstream.isKeyframe(header(profile: profile, showExisting: true, keyframe: true), codec: .vp9))
            #expect(!VPXBitstream.isKeyframe(header(profile: profile, keyframe: true, sync: 0x49_83_43), codec: .vp9))
        }
        #expect(VPXBitstream.isKeyframe(Self.vp9Key, codec: .vp9))
        #expect(!VPXBitstream.isKeyframe(Array(Self.vp9Key.prefix(3)), codec: .vp9))
        #expect(!VPXBitstream.isKeyframe([], codec: .vp9))
        #expect(!VPXBitstream.isKeyframe([0x42, 0x49, 0x83, 0x42], codec: .vp9))  // frame_marker 01
        #expect(VPXBitstream.isKeyframe(Self.vp8Key, codec: .vp8))
        #expect(!VPXBitstream.isKeyframe([0x11] + Self.vp8Key.dropFirst(), codec: .vp8))
        #expect(!VPXBitstream.isKeyframe(Array(Self.vp8Key.prefix(5)), codec: .vp8))
        #expect(!VPXBitstream.isKeyframe([], codec: .vp8))
    }

    static func file(fourCC: String = "VP80", version: UInt16 = 0, headerSize: UInt16 = 32, width: UInt16 = 64,
                     frames: [(size: UInt32, data: [UInt8])] = []) -> [UInt8] {
        var out = Array("DKIF".utf8)
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        u16(version); u16(headerSize); out += Array(fourCC.utf8); u16(width); u16(48); u32(30); u32(1); u32(UInt32(frames.count)); u32(0)
        for frame in frames { u32(frame.size); u32(0); u32(0); out += frame.data }
        return out
    }

    @Test func rejectsBadInput() throws {
        Support.expectError(.truncated) { _ = try IVFReader(bytes: []) }
        Support.expectError(.truncated) { _ = try IVFReader(bytes: Array(Self.file().prefix(20))) }
        Support.expectError(.malformed) { _ = try IVFReader(bytes: Array("RIFF".utf8) + Self.file().dropFirst(4)) }
        Support.expectError(.unsupported) { _ = try IVFReader(bytes: Self.file(version: 1)) }
        Support.expectError(.malformed) { _ = try IVFReader(bytes: Self.file(headerSize: 64)) }
        Support.expectError(.malformed) { _ = try IVFReader(bytes: Self.file(width: 0)) }
        let error = Support.expectError(.unsupported) { _ = try IVFReader(bytes: Self.file(fourCC: "AV01")) }
        #expect(error?.detail.contains("AV01") == true)
        var random = SeededRandom(seed: 2)
        Support.expectError(.malformed) { _ = try IVFReader(bytes: (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) }) }

        // A frame larger than the cap, a frame cut short and a frame header cut short.
        let huge = try IVFReader(bytes: Self.file(frames: [(size: 0xFFFF_FFF0, data: [1, 2, 3])]))
        Support.expectError(.malformed) { _ = try huge.next() }
        let short = try IVFReader(bytes: Self.file(frames: [(size: 10, data: Self.vp8Key), (size: 100, data: [1, 2, 3])]))
        #expect(try short.next()?.isKeyframe == true)
        Support.expectError(.truncated) { _ = try short.next() }
        let cutHeader = try IVFReader(bytes: Array(Self.file(frames: [(size: 10, data: Self.vp8Key)]).dropLast(15)))
        Support.expectError(.truncated) { _ = try cutHeader.next() }
    }

    @Test func writerRejectsOtherCodecs() throws {
        Support.expectError(.unsupported) { _ = try IVFWriter(sink: MemoryByteSink(), header: IVFHeader(codec: .h264, width: 16, height: 16)) }
        Support.expectError(.unsupported) { _ = try IVFWriter(sink: MemoryByteSink(), header: IVFHeader(codec: .vp8, width: 70_000, height: 16)) }
        let writer = try IVFWriter(sink: MemoryByteSink(), header: IVFHeader(codec: .vp8, width: 16, height: 16))
        Support.expectError(.malformed) { try writer.write(EncodedFrame(codec: .vp9, data: [1])) }
    }

    /// FFmpeg's VP8 and VP9 IVF files read as 30 frames starting with a keyframe; remuxed
    /// through IVFWriter, FFmpeg still counts 30 frames.
    @Test(.enabled(if: Support.hasFFmpeg), arguments: [("libvpx", Codec.vp8), ("libvpx-vp9", .vp9)])
    func interopsWithFFmpeg(encoder: String, codec: Codec) throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/in.ivf"
        var arguments = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-c:v", encoder, "-b:v", "300k", "-g", "15"]
        if codec == .vp9 { arguments += ["-deadline", "realtime", "-cpu-used", "8"] }
        try Support.ffmpeg(arguments + [path])

        let reader = try IVFReader(path: path)
        #expect(reader.header.codec == codec && reader.header.width == 320 && reader.header.height == 240)
        var frames: [EncodedFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        #expect(frames.count == 30)
        #expect(frames.first?.isKeyframe == true)
        #expect(frames.filter(\.isKeyframe).count == 2)
        #expect(frames.last?.timestamp == Timestamp(microseconds: 966_666))

        let out = dir + "/out.ivf"
        let writer = try IVFWriter(path: out, codec: codec, width: 320, height: 240, timebaseNumerator: 1, timebaseDenominator: 30)
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        #expect(try Support.ffprobe(out, entry: "nb_read_frames", countFrames: true) == "30")
        let info = try MediaFileInfo.probe(path: out)
        #expect(info.frameCount == 30 && info.keyframeCount == 2 && info.duration == .seconds(1))
    }
}
