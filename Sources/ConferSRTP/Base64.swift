/// Standard base64 (RFC 4648 §4), the alphabet SDES keys use (RFC 4568 §6.1).
///
/// Kept here so ConferSRTP needs no Foundation; the decoder reports where bad input is.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` encoded with `=` padding.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let a = iterator.next() {
            let b = iterator.next()
            let c = iterator.next()
            let group = UInt32(a) << 16 | UInt32(b ?? 0) << 8 | UInt32(c ?? 0)
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(b == nil ? UInt8(ascii: "=") : alphabet[Int(group >> 6 & 63)])
            out.append(c == nil ? UInt8(ascii: "=") : alphabet[Int(group & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes. Padding may be omitted; anything else outside the alphabet
    /// is an error whose offset is relative to `baseOffset`.
    static func decode(_ text: Substring, baseOffset: Int = 0) throws(SRTPKeyError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var end = utf8.count
        var padding = 0
        while end > 0, utf8[end - 1] == UInt8(ascii: "="), padding < 2 {
            end -= 1
            padding += 1
        }
        if padding > 0, utf8.count % 4 != 0 {
            throw SRTPKeyError(.invalidBase64, offset: baseOffset + end, "base64 padding does not complete a 4-character group")
        }
        if end % 4 == 1 {
            throw SRTPKeyError(.invalidBase64, offset: baseOffset + end, "base64 text ends in the middle of a byte")
        }
        var out: [UInt8] = []
        out.reserveCapacity(end * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0 ..< end {
            guard let value = sextet(utf8[index]) else {
                throw SRTPKeyError(.invalidBase64, offset: baseOffset + index, "character is not base64")
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a") ... UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
