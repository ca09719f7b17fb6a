/// Reads bits most-significant first from a byte buffer, optionally skipping H.264/H.265
/// emulation-prevention bytes (the 0x03 in 0x00 0x00 0x03).
///
/// Every read is bounds-checked and throws `.truncated` past the end, so bitstream
/// parsers can read headers from hostile input without trapping.
struct BitReader {
    private let bytes: UnsafeRawBufferPointer
    private let removesEmulationPrevention: Bool
    private let format: String
    /// Offset of `bytes[0]` in the unit being parsed, for error messages.
    private let baseOffset: Int
    /// Index of the byte holding the next bit.
    private var index = 0
    /// Bits of `bytes[index]` already consumed (0–7).
    private var bit = 0
    /// Zero bytes just before `index`, for spotting emulation prevention.
    private var zeros = 0

    /// A reader over `bytes` (valid while the reader is used), reporting errors as `format`
    /// at offsets counted from `baseOffset`.
    init(_ bytes: UnsafeRawBufferPointer, format: String, baseOffset: Int = 0, removingEmulationPrevention: Bool = false) {
        self.bytes = bytes
        self.format = format
        self.baseOffset = baseOffset
        removesEmulationPrevention = removingEmulationPrevention
        skipEmulationPrevention()
    }

    /// Whether bits remain.
    var hasMoreData: Bool { index < bytes.count }
    /// Offset of the byte holding the next bit, counted from `baseOffset`.
    var byteOffset: Int { baseOffset + index }

    private mutating func skipEmulationPrevention() {
        if removesEmulationPrevention, zeros >= 2, index < bytes.count, bytes[index] == 0x03 {
            index += 1
            zeros = 0
        }
    }

    /// One bit.
    mutating func readBit() throws(MediaFileError) -> UInt32 {
        guard index < bytes.count else {
            throw MediaFileError(.truncated, format: format, offset: byteOffset, "bitstream ended inside a header")
        }
        let byte = bytes[index]
        let value = UInt32(byte >> (7 - bit)) & 1
        bit += 1
        if bit == 8 {
            bit = 0
            zeros = byte == 0 ? zeros + 1 : 0
            index += 1
            skipEmulationPrevention()
        }
        return value
    }

    /// `count` bits (at most 32) as an unsigned number.
    mutating func readBits(_ count: Int) throws(MediaFileError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try readBit()) }
        return value
    }

    /// One bit as a flag.
    mutating func readFlag() throws(MediaFileError) -> Bool { try readBit() == 1 }

    /// An unsigned Exp-Golomb number, ue(v), up to 2³² − 2.
    mutating func readUE() throws(MediaFileError) -> UInt32 {
        let start = byteOffset
        var leadingZeros = 0
        while try readBit() == 0 {
            leadingZeros += 1
            guard leadingZeros < 32 else {
                throw MediaFileError(.malformed, format: format, offset: start, "Exp-Golomb code longer than 32 bits")
            }
        }
        let suffix = try readBits(leadingZeros)
        return UInt32((UInt64(1) << leadingZeros) - 1 + UInt64(suffix))
    }

    /// A signed Exp-Golomb number, se(v).
    mutating func readSE() throws(MediaFileError) -> Int32 {
        let k = Int64(try readUE())
        return Int32(k & 1 == 1 ? (k + 1) / 2 : -(k / 2))
    }

    /// An unsigned ue(v) that must not exceed `limit`, or `.malformed` naming `what`.
    mutating func readUE(max limit: UInt32, _ what: String) throws(MediaFileError) -> Int {
        let start = byteOffset
        let value = try readUE()
        guard value <= limit else {
            throw MediaFileError(.malformed, format: format, offset: start, "\(what) is \(value); at most \(limit) is allowed")
        }
        return Int(value)
    }
}
