import Testing
@testable import ConferRTP

/// A header with 2 CSRCs and a 2-word one-byte extension (32 bytes), then 3 payload bytes.
let headerWithEverything = hex("""
    92 60 00 01 | 00 00 00 02 | 00 00 00 03 | 00 00 00 04 | 00 00 00 05
    BE DE 00 02 | 10 FF 22 01 | 02 03 00 00
    AA BB CC
    """)

@Test func everyTruncationGivesTheErrorForTheFieldItCuts() throws {
    for length in 0 ... headerWithEverything.count {
        let prefix = Array(headerWithEverything.prefix(length))
        let expected: RTPError? = switch length {
        case ..<12: .truncatedHeader(length: length)
        case ..<20: .csrcListTruncated(count: 2, length: length)
        case ..<24: .extensionHeaderTruncated(offset: 20)
        case ..<32: .extensionLengthBeyondPacket(words: 2, offset: 20)
        default: nil
        }
        #expect(rtpError(prefix) == expected, "prefix of \(length) bytes")
        if expected == nil {
            #expect(try withView(prefix) { $0.payload.count } == length - 32)
        }
        #expect(expected?.offset == rtpError(prefix)?.offset)
    }
}

@Test func everyTruncationOfAPaddedPacketIsAnErrorOrConsistent() throws {
    let padded = try RTPPacket(
        header: RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [4, 5],
                          extensions: [RTPHeaderExtension(id: 1, data: [9]), RTPHeaderExtension(id: 2, data: [1, 2, 3])]),
        payload: [0xAA, 0xBB], paddingSize: 4).serialized()
    for length in 0 ... padded.count {
        let prefix = Array(padded.prefix(length))
        if let view = try? withView(prefix, { ($0.headerSize, $0.payload.count, $0.paddingSize) }) {
            #expect(view.0 + view.1 + view.2 == length)
        } else {
            #expect(rtpError(prefix) != nil)
        }
    }
    #expect(try withView(padded) { $0.paddingSize } == 4)
}

@Test func wrongVersionsAreRejected() {
    for version: UInt8 in [0, 1, 3] {
        var bytes = wiresharkExample
        bytes[0] = version << 6 | (bytes[0] & 0x3F)
        #expect(rtpError(bytes) == .badVersion(version))
    }
}

@Test func aCSRCCountBeyondThePacketIsRejected() {
    var bytes = hex("80 60 00 01 00 00 00 02 00 00 00 03 00 00 00 04 AA")
    bytes[0] = 0x8F  // 15 CSRCs, 60 bytes, but only 5 follow
    #expect(rtpError(bytes) == .csrcListTruncated(count: 15, length: 17))
    #expect(rtpError(bytes)?.offset == 17)
}

@Test func anExtensionLengthBeyondThePacketIsRejected() {
    let bytes = hex("90 60 00 01 00 00 00 02 00 00 00 03 BE DE 00 03 10 FF 00 00 AA BB")
    #expect(rtpError(bytes) == .extensionLengthBeyondPacket(words: 3, offset: 12))
    let huge = hex("90 60 00 01 00 00 00 02 00 00 00 03 BE DE FF FF")
    #expect(rtpError(huge) == .extensionLengthBeyondPacket(words: 0xFFFF, offset: 12))
}

@Test func paddingCountsOfZeroOrBeyondThePayloadAreRejected() {
    // P bit, 2 payload bytes after a 12-byte header.
    #expect(rtpError(hex("A0 60 00 01 00 00 00 02 00 00 00 03 AA 00")) == .badPadding(count: 0, offset: 13))
    #expect(rtpError(hex("A0 60 00 01 00 00 00 02 00 00 00 03 AA 03")) == .badPadding(count: 3, offset: 13))
    // Padding may not reach back into the header: nothing follows it here.
    #expect(rtpError(hex("A0 60 00 01 00 00 00 02 00 00 00 03")) == .badPadding(count: 3, offset: 11))
    // The whole payload may be padding.
    #expect(rtpError(hex("A0 60 00 01 00 00 00 02 00 00 00 03 00 02")) == nil)
}

@Test func oneByteElementsRunningPastTheBlockAreRejected() {
    // id 1 declares 4 bytes (L=3) but only 3 remain in the one-word block.
    let bytes = hex("90 60 00 01 00 00 00 02 00 00 00 03 BE DE 00 01 13 AA BB CC DD")
    #expect(rtpError(bytes) == .extensionElementTruncated(id: 1, length: 4, offset: 16))
}

@Test func twoByteElementLengthsAreChecked() {
    // Length byte missing: the block's last byte is an id.
    let noLength = hex("90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 01 00 00 00 05")
    #expect(rtpError(noLength) == .extensionElementTruncated(id: 5, length: -1, offset: 19))
    // Declared 3 data bytes, 2 remain.
    let short = hex("90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 01 07 03 AA BB")
    #expect(rtpError(short) == .extensionElementTruncated(id: 7, length: 3, offset: 16))
    // Declared 255 bytes in a one-word block.
    let long = hex("90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 01 07 FF AA BB")
    #expect(rtpError(long) == .extensionElementTruncated(id: 7, length: 255, offset: 16))
    // Exactly fitting is fine, and a zero-length element is allowed in this form.
    let exact = hex("90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 01 07 02 AA BB")
    #expect(rtpError(exact) == nil)
    let empty = hex("90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 01 07 00 08 00")
    #expect(rtpError(empty) == nil)
}

@Test func errorsDescribeThemselves() {
    #expect(RTPError.badVersion(1).description == "RTP: version 1 at byte 0, expected 2")
    #expect(RTPError.badPadding(count: 9, offset: 20).offset == 20)
}
