import Testing
@testable import ConferMedia

/// Builds H.264 NAL units for tests.
enum H264Build {
    struct SPSFields {
        var profile: UInt32 = 66
        var constraint: UInt32 = 0xC0
        var level: UInt32 = 30
        var chromaFormat: UInt32 = 1
        var scalingLists: [Int: [Int32]] = [:]
        var pocType: UInt32 = 0
        var maxRefFrames: UInt32 = 1
        var widthInMBs: UInt32 = 20
        var heightInMapUnits: UInt32 = 15
        var frameMBsOnly = true
        var crop: (left: UInt32, right: UInt32, top: UInt32, bottom: UInt32)?
    }

    /// Inserts emulation-prevention bytes (00 00 0x with x ≤ 3 becomes 00 00 03 0x).
    static func escape(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 { out.append(3); zeros = 0 }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    static func sps(_ f: SPSFields) -> [UInt8] {
        var w = BitWriter()
        w.bits(f.profile, 8); w.bits(f.constraint, 8); w.bits(f.level, 8)
        w.ue(0)  // seq_parameter_set_id
        if H264SPS.highProfiles.contains(Int(f.profile)) {
            w.ue(f.chromaFormat)
            if f.chromaFormat == 3 { w.bit(false) }
            w.ue(0); w.ue(0); w.bit(false)
            w.bit(!f.scalingLists.isEmpty)
            if !f.scalingLists.isEmpty {
                for i in 0 ..< (f.chromaFormat == 3 ? 12 : 8) {
                    guard let deltas = f.scalingLists[i] else { w.bit(false); continue }
                    w.bit(true)
                    for d in deltas { w.se(d) }
                }
            }
        }
        w.ue(0)  // log2_max_frame_num_minus4
        w.ue(f.pocType)
        if f.pocType == 0 { w.ue(2) }
        if f.pocType == 1 { w.bit(false); w.se(-3); w.se(2); w.ue(3); w.se(1); w.se(-1); w.se(7) }
        w.ue(f.maxRefFrames)
        w.bit(false)
        w.ue(f.widthInMBs - 1); w.ue(f.heightInMapUnits - 1)
        w.bit(f.frameMBsOnly)
        if !f.frameMBsOnly { w.bit(false) }
        w.bit(true)
        w.bit(f.crop != nil)
        if let c = f.crop { w.ue(c.left); w.ue(c.right); w.ue(c.top); w.ue(c.bottom) }
        w.bit(false)  // vui_parameters_present_flag
        w.trailing()
        return [0x67] + escape(w.bytes)
    }

    /// A slice NAL unit of `type` (1 or 5) with first_mb_in_slice = `firstMB` and seeded filler.
    static func slice(type: UInt8, firstMB: UInt32, random: inout SeededRandom, size: Int = 40) -> [UInt8] {
        var w = BitWriter()
        w.ue(firstMB)
        w.ue(7)
        for _ in 0..<size { w.bits(UInt32(truncatingIfNeeded: random.next()), 8) }
        w.trailing()
        return [0x60 | type] + escape(w.bytes)
    }
}

@Suite struct AnnexBTests {
    static let shortCode: [UInt8] = [0, 0, 1]
    static let longCode: [UInt8] = [0, 0, 0, 1]

    /// NAL units group into access units at AUDs, parameter sets and SEI after a slice,
    /// and at slices with first_mb_in_slice 0; data round-trips byte for byte.
    @Test func groupsAccessUnitsAndRoundTrips() throws {
        var random = SeededRandom(seed: 12)
        let sps = H264Build.sps(.init())
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let sei: [UInt8] = [0x06, 0x05, 0x01, 0xAA, 0x80]
        let aud: [UInt8] = [0x09, 0xF0]
        let units: [[(code: [UInt8], nal: [UInt8])]] = [
            [(Self.longCode, sps), (Self.longCode, pps), (Self.shortCode, sei),
             (Self.shortCode, H264Build.slice(type: 5, firstMB: 0, random: &random)),
             (Self.shortCode, H264Build.slice(type: 5, firstMB: 150, random: &random))],
            [(Self.longCode, H264Build.slice(type: 1, firstMB: 0, random: &random)),
             (Self.shortCode, H264Build.slice(type: 1, firstMB: 3, random: &random, size: 200_000))],
            [(Self.longCode, aud), (Self.longCode, H264Build.slice(type: 1, firstMB: 0, random: &random))],
            [(Self.shortCode, sei), (Self.shortCode, H264Build.slice(type: 1, firstMB: 0, random: &random))],
        ]
        let expected = units.map { au in au.flatMap { $0.code + $0.nal } }
        let stream = expected.flatMap { $0 }

        let reader = try AnnexBReader(bytes: stream, frameRateNumerator: 25)
        var frames: [EncodedFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        #expect(frames.count == 4)
        #expect(frames.map(\.data) == expected)
        #expect(frames.map(\.isKeyframe) == [true, false, false, false])
        #expect(frames.map(\.nalUnits.count) == [5, 2, 2, 2])
        #expect(frames.map(\.timestamp) == [0, 40, 80, 120].map { .milliseconds($0) })
        #expect(frames.allSatisfy { $0.width == 320 && $0.height == 240 && $0.duration == .milliseconds(40) })
        for (frame, au) in zip(frames, units) {
            #expect(frame.nalUnits.map { Array(frame.data[$0]) } == au.map(\.nal))
        }

        let sink = MemoryByteSink()
        let writer = AnnexBWriter(sink: sink)
        for frame in frames { try writer.write(frame) }
        try writer.finish()
        #expect(sink.bytes == stream)
    }

    /// Extra zero bytes between NAL units (trailing_zero_8bits) are not part of either unit.
    @Test func dropsTrailingZeroBytes() throws {
        var random = SeededRandom(seed: 1)
        let a = H264Build.slice(type: 5, firstMB: 0, random: &random)
        let b = H264Build.slice(type: 1, firstMB: 0, random: &random)
        let reader = try AnnexBReader(bytes: [0, 0, 0, 0, 0, 1] + a + [0, 0, 0, 0, 0] + Self.shortCode + b + [0, 0])
        let first = try #require(try reader.next())
        #expect(first.data == Self.longCode + a)
        let second = try #require(try reader.next())
        #expect(second.data == Self.longCode + b)
        #expect(try reader.next() == nil)
    }

    @Test func rejectsBadInput() throws {
        var random = SeededRandom(seed: 6)
        let slice = H264Build.slice(type: 5, firstMB: 0, random: &random)
        Support.expectError(.truncated) { _ = try AnnexBReader(bytes: []) }
        Support.expectError(.truncated) { _ = try AnnexBReader(bytes: [0, 0, 0]) }
        Support.expectError(.truncated) { _ = try AnnexBReader(bytes: [0, 0, 0, 1]) }
        Support.expectError(.malformed) { _ = try AnnexBReader(bytes: Array("not h264 at all".utf8)) }
        Support.expectError(.malformed) { _ = try AnnexBReader(bytes: [0, 1] + slice) }
        Support.expectError(.malformed) { _ = try AnnexBReader(bytes: (0..<400).map { _ in UInt8(truncatingIfNeeded: random.next() | 0x10) }) }
        // A stream cut right after a start code.
        let cut = try AnnexBReader(bytes: Self.longCode + slice + Self.longCode)
        Support.expectError(.truncated) { _ = try cut.next() }
        // forbidden_zero_bit.
        let forbidden = try AnnexBReader(bytes: Self.longCode + [0x85] + slice.dropFirst())
        Support.expectError(.malformed) { _ = try forbidden.next() }
        // A malformed SPS inside the stream is reported, not skipped.
        let badSPS = try AnnexBReader(bytes: Self.longCode + [0x67, 0x42, 0x00, 0x1E] + Self.longCode + slice)
        Support.expectError(.truncated) { _ = try badSPS.next() }
        Support.expectError(.malformed) { _ = try AnnexBReader(bytes: [0, 0, 1], frameRateNumerator: 0) }
        Support.expectError(.malformed) { try AnnexBWriter(sink: MemoryByteSink()).write(EncodedFrame(codec: .h264, data: slice)) }
        Support.expectError(.malformed) { try AnnexBWriter(sink: MemoryByteSink()).write(EncodedFrame(codec: .vp8, data: Self.longCode + slice)) }
    }

    @Test func parsesSPSVariants() throws {
        // Baseline, no cropping.
        var sps = try H264SPS.parse(H264Build.sps(.init()))
        #expect(sps.profileIDC == 66 && sps.levelIDC == 30 && sps.constraintFlags == 0xC0)
        #expect(sps.width == 320 && sps.height == 240)
        // 1080p: 1088 coded rows, 8 cropped (4 units of 2 rows in 4:2:0).
        sps = try H264SPS.parse(H264Build.sps(.init(profile: 100, widthInMBs: 120, heightInMapUnits: 68, crop: (0, 0, 0, 4))))
        #expect(sps.width == 1920 && sps.height == 1080 && sps.chromaFormatIDC == 1)
        // High 4:4:4 with scaling lists (each ends when next_scale reaches 0): crop units are single pixels.
        var fields = H264Build.SPSFields(profile: 244, chromaFormat: 3, scalingLists: [0: [3, -5, -6], 6: [1, 1, -10], 11: [-8]],
                                         widthInMBs: 20, heightInMapUnits: 15, crop: (1, 1, 0, 2))
        sps = try H264SPS.parse(H264Build.sps(fields))
        #expect(sps.chromaFormatIDC == 3 && sps.width == 318 && sps.height == 238)
        // 4:2:2: crop unit 2 across, 1 down.
        fields = H264Build.SPSFields(profile: 122, chromaFormat: 2, crop: (1, 1, 1, 1))
        sps = try H264SPS.parse(H264Build.sps(fields))
        #expect(sps.width == 316 && sps.height == 238)
        // Field coding: map units are field macroblock pairs, crop rows count double.
        fields = H264Build.SPSFields(pocType: 1, heightInMapUnits: 8, frameMBsOnly: false, crop: (0, 0, 0, 4))
        sps = try H264SPS.parse(H264Build.sps(fields))
        #expect(!sps.frameMBsOnly && sps.width == 320 && sps.height == 240)
        // A long run of zero bits forces emulation-prevention bytes into the SPS.
        let escaped = H264Build.sps(.init(constraint: 0, pocType: 2, maxRefFrames: (1 << 24) - 1))
        #expect((0 ..< escaped.count - 2).contains { escaped[$0] == 0 && escaped[$0 + 1] == 0 && escaped[$0 + 2] == 3 })
        sps = try H264SPS.parse(escaped)
        #expect(sps.width == 320 && sps.height == 240)
    }

    @Test func rejectsBadSPS() {
        let good = H264Build.sps(.init())
        Support.expectError(.truncated) { _ = try H264SPS.parse([]) }
        Support.expectError(.truncated) { _ = try H264SPS.parse(Array(good.prefix(5))) }
        Support.expectError(.malformed) { _ = try H264SPS.parse([0x68] + good.dropFirst()) }
        Support.expectError(.malformed) { _ = try H264SPS.parse([0x67, 0x42, 0, 0x1E] + Array(repeating: 0, count: 8) + [0x80]) }
        Support.expectError(.unsupported) { _ = try H264SPS.parse(H264Build.sps(.init(widthInMBs: 1025))) }
        Support.expectError(.malformed) { _ = try H264SPS.parse(H264Build.sps(.init(crop: (100, 100, 0, 0)))) }
        Support.expectError(.malformed) { _ = try H264SPS.parse(H264Build.sps(.init(profile: 100, chromaFormat: 4))) }
        Support.expectError(.malformed) { _ = try H264SPS.parse(H264Build.sps(.init(profile: 100, scalingLists: [0: [200]]))) }
    }

    /// FFmpeg's libx264 streams read as 30 access units with the SPS size (cropping,
    /// 4:4:4 and interlaced included); rewritten, they are byte-identical and FFmpeg decodes 30 frames.
    @Test(.enabled(if: Support.hasFFmpeg), arguments: [
        ("320x240", "yuv420p", [String](), 320, 240),
        ("1920x1080", "yuv420p", [], 1920, 1080),
        ("318x238", "yuv444p", [], 318, 238),
        ("320x240", "yuv420p", ["-x264-params", "interlaced=1"], 320, 240),
    ])
    func interopsWithFFmpeg(size: String, pixelFormat: String, extra: [String], width: Int, height: Int) throws {
        let dir = try Support.makeTempDirectory()
        defer { Support.cleanUp(dir) }
        let path = dir + "/in.h264"
        let frames = width > 1000 ? 2 : 30
        try Support.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-frames:v", "\(frames)", "-pix_fmt", pixelFormat,
                            "-c:v", "libx264", "-preset", "ultrafast", "-g", "10"] + extra + ["-bsf:v", "h264_mp4toannexb", "-f", "h264", path])
        let reader = try AnnexBReader(path: path)
        var units: [EncodedFrame] = []
        while let frame = try reader.next() { units.append(frame) }
        #expect(units.count == frames)
        #expect(units.first?.isKeyframe == true)
        #expect(reader.sps?.width == width && reader.sps?.height == height)
        #expect(units.allSatisfy { $0.width == width && $0.height == height })
        if frames == 30 { #expect(units.filter(\.isKeyframe).count == 3) }

        let out = dir + "/out.h264"
        let writer = try AnnexBWriter(path: out)
        for frame in units { try writer.write(frame) }
        try writer.finish()
        #expect(try Support.bytes(out) == Support.bytes(path))
        #expect(try Support.ffprobe(out, entry: "nb_read_frames", countFrames: true) == "\(frames)")
    }
}
