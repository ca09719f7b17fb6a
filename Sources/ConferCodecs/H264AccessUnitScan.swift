/// What the H.264 decoder needs to know about an Annex-B access unit before decoding it:
/// whether it holds NAL units at all, and whether it starts a fresh picture (IDR).
///
/// One pass over the bytes, no allocation; it reads only NAL header bytes, each after a
/// bounds check.
struct H264AccessUnitScan {
    /// NAL units found after a start code.
    private(set) var nalUnitCount = 0
    /// Whether any NAL unit is an IDR slice (type 5).
    private(set) var containsIDR = false
    /// Whether any NAL unit is a coded slice (types 1 or 5).
    private(set) var containsSlice = false
    /// Byte offset of the first NAL header whose forbidden_zero_bit is set, if any.
    private(set) var forbiddenBitOffset: Int?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        var index = 0
        // A start code is 00 00 01 (the 4-byte form ends the same way).
        while index + 3 < count {
            if bytes[index + 2] > 1 {
                index += 3
            } else if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                let header = bytes[index + 3]
                nalUnitCount += 1
                if header & 0x80 != 0, forbiddenBitOffset == nil { forbiddenBitOffset = index + 3 }
                switch header & 0x1F {
                case 5: containsIDR = true; containsSlice = true
                case 1: containsSlice = true
                default: break
                }
                index += 4
            } else {
                index += 1
            }
        }
    }
}
