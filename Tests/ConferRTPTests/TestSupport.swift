@testable import ConferRTP

/// Bytes from a hex string; spaces, newlines and `|` separators are ignored so packets can
/// be laid out field by field.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { $0.isHexDigit }
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index ..< next], radix: 16)!)
        index = next
    }
    return bytes
}

/// Parses `bytes` as an RTP packet view and hands it to `body`.
@discardableResult
func withView<R>(_ bytes: [UInt8], _ body: (RTPPacketView) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in try body(try RTPPacketView(raw)) }
}

/// The RTP error parsing `bytes` throws, or nil when it parses.
func rtpError(_ bytes: [UInt8]) -> RTPError? {
    do {
        _ = try RTPPacket(parsing: bytes)
        return nil
    } catch {
        return error
    }
}

/// The RTCP error parsing `bytes` throws, or nil when it parses.
func rtcpError(_ bytes: [UInt8]) -> RTCPError? {
    do {
        _ = try RTCPCompound.parse(bytes)
        return nil
    } catch {
        return error
    }
}
