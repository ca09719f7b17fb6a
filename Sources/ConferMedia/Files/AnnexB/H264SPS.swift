/// The parts of an H.264 sequence parameter set (ITU-T H.264 §7.3.2.1.1) that probing and
/// packetizing need: profile, level and the cropped picture size.
public struct H264SPS: Sendable, Equatable, Codable {
    /// profile_idc (66 baseline, 77 main, 100 high, …).
    public var profileIDC: Int
    /// The constraint_set flags byte.
    public var constraintFlags: UInt8
    /// level_idc (31 = level 3.1).
    public var levelIDC: Int
    /// seq_parameter_set_id.
    public var id: Int
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormatIDC: Int
    /// Luma bit depth.
    public var bitDepthLuma: Int
    /// Whether every picture is a frame (no field coding).
    public var frameMBsOnly: Bool
    /// Picture width in pixels after cropping.
    public var width: Int
    /// Picture height in pixels after cropping.
    public var height: Int

    /// The largest width or height accepted, as for every other format in ConferMedia.
    public static let maxDimension = 16_384
    static let format = "H.264 SPS"
    /// Profiles whose SPS carries chroma format, bit depths and scaling matrices.
    static let highProfiles: Set<Int> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135, 144]

    /// Parses an SPS NAL unit: its one-byte NAL header (type 7) followed by the payload,
    /// still with emulation-prevention bytes.
    public static func parse(_ nalUnit: [UInt8]) throws(MediaFileError) -> H264SPS {
        try nalUnit.withBytes { (raw) throws(MediaFileError) in try parse(raw) }
    }

    /// Parses an SPS NAL unit: its one-byte NAL header (type 7) followed by the payload,
    /// still with emulation-prevention bytes.
    public static func parse(_ nalUnit: UnsafeRawBufferPointer) throws(MediaFileError) -> H264SPS {
        guard let first = nalUnit.first else {
            throw MediaFileError(.truncated, format: format, offset: 0, "SPS NAL unit is empty")
        }
        guard first & 0x1F == 7 else {
            throw MediaFileError(.malformed, format: format, offset: 0, "NAL unit type \(first & 0x1F) is not an SPS (7)")
        }
        // The fixed bytes too go through the reader: emulation prevention applies to them.
        var bits = BitReader(UnsafeRawBufferPointer(rebasing: nalUnit[1...]), format: format, baseOffset: 1, removingEmulationPrevention: true)
        let profile = Int(try bits.readBits(8))
        let constraintFlags = UInt8(try bits.readBits(8))
        let level = Int(try bits.readBits(8))
        var sps = H264SPS(profileIDC: profile, constraintFlags: constraintFlags, levelIDC: level, id: 0,
                          chromaFormatIDC: 1, bitDepthLuma: 8, frameMBsOnly: true, width: 0, height: 0)
        sps.id = try bits.readUE(max: 31, "seq_parameter_set_id")
        var separateColourPlanes = false
        if highProfiles.contains(profile) {
            sps.chromaFormatIDC = try bits.readUE(max: 3, "chroma_format_idc")
            if sps.chromaFormatIDC == 3 { separateColourPlanes = try bits.readFlag() }
            sps.bitDepthLuma = 8 + (try bits.readUE(max: 6, "bit_depth_luma_minus8"))
            _ = try bits.readUE(max: 6, "bit_depth_chroma_minus8")
            _ = try bits.readFlag()  // qpprime_y_zero_transform_bypass_flag
            if try bits.readFlag() {  // seq_scaling_matrix_present_flag
                for list in 0 ..< (sps.chromaFormatIDC == 3 ? 12 : 8) where try bits.readFlag() {
                    try skipScalingList(&bits, size: list < 6 ? 16 : 64)
                }
            }
        }
        _ = try bits.readUE(max: 12, "log2_max_frame_num_minus4")
        switch try bits.readUE(max: 2, "pic_order_cnt_type") {
        case 0:
            _ = try bits.readUE(max: 12, "log2_max_pic_order_cnt_lsb_minus4")
        case 1:
            _ = try bits.readFlag()  // delta_pic_order_always_zero_flag
            _ = try bits.readSE()  // offset_for_non_ref_pic
            _ = try bits.readSE()  // offset_for_top_to_bottom_field
            let cycle = try bits.readUE(max: 255, "num_ref_frames_in_pic_order_cnt_cycle")
            for _ in 0..<cycle { _ = try bits.readSE() }
        default:
            break
        }
        _ = try bits.readUE()  // max_num_ref_frames
        _ = try bits.readFlag()  // gaps_in_frame_num_value_allowed_flag
        let widthInMBs = Int(try bits.readUE()) + 1
        let heightInMapUnits = Int(try bits.readUE()) + 1
        sps.frameMBsOnly = try bits.readFlag()
        if !sps.frameMBsOnly { _ = try bits.readFlag() }  // mb_adaptive_frame_field_flag
        _ = try bits.readFlag()  // direct_8x8_inference_flag
        let codedWidth = widthInMBs * 16
        let codedHeight = heightInMapUnits * 16 * (sps.frameMBsOnly ? 1 : 2)
        guard codedWidth <= maxDimension, codedHeight <= maxDimension else {
            throw MediaFileError(.unsupported, format: format, offset: bits.byteOffset,
                                 "coded size \(codedWidth)×\(codedHeight) exceeds the \(maxDimension)×\(maxDimension) limit")
        }
        var cropX = 0
        var cropY = 0
        if try bits.readFlag() {  // frame_cropping_flag
            // Crop offsets count in chroma sample units (Table 6-1), doubled for field coding.
            let chromaArrayType = separateColourPlanes ? 0 : sps.chromaFormatIDC
            let unitX = chromaArrayType == 0 || chromaArrayType == 3 ? 1 : 2
            let unitY = (chromaArrayType == 1 ? 2 : 1) * (sps.frameMBsOnly ? 1 : 2)
            let limit = UInt32(maxDimension)
            cropX = unitX * (try bits.readUE(max: limit, "frame_crop_left_offset") + (try bits.readUE(max: limit, "frame_crop_right_offset")))
            cropY = unitY * (try bits.readUE(max: limit, "frame_crop_top_offset") + (try bits.readUE(max: limit, "frame_crop_bottom_offset")))
        }
        guard cropX < codedWidth, cropY < codedHeight else {
            throw MediaFileError(.malformed, format: format, offset: bits.byteOffset,
                                 "cropping \(cropX)×\(cropY) leaves nothing of the \(codedWidth)×\(codedHeight) picture")
        }
        sps.width = codedWidth - cropX
        sps.height = codedHeight - cropY
        return sps
    }

    /// Skips one scaling_list() (§7.3.2.1.1.1); only its length matters here.
    private static func skipScalingList(_ bits: inout BitReader, size: Int) throws(MediaFileError) {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            let delta = Int(try bits.readSE())
            guard (-128...127).contains(delta) else {
                throw MediaFileError(.malformed, format: format, offset: bits.byteOffset, "delta_scale \(delta) is outside −128…127")
            }
            next = (last + delta + 256) % 256
            if next != 0 { last = next }
        }
    }
}
