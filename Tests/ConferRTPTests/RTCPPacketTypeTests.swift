import Testing
import ConferMedia
@testable import ConferRTP

/// SR with one report block, laid out by hand (RFC 3550 §6.4.1).
let senderReportBytes = hex("""
    81 C8 00 0C
    11 22 33 44
    E5 4A 1B 2C 80 00 00 00
    00 01 5F 90
    00 00 00 64
    00 00 3E 80
    55 66 77 88 | 40 FF FF FE | 00 01 00 05 | 00 00 00 20 | 1B 2C 80 00 | 00 01 80 00
    """)

/// SDES with one chunk: CNAME "user@host" and NAME "Al", a null and no extra padding.
let sourceDescriptionBytes = hex("""
    81 CA 00 05
    11 22 33 44
    01 09 75 73 65 72 40 68 6F 73 74
    02 02 41 6C
    00
    """)

/// Generic NACK for 10, 11 and 13: PID 10 with BLP bits 0 and 2.
let nackBytes = hex("81 CD 00 03 | 11 22 33 44 | 55 66 77 88 | 00 0A 00 05")

/// Parses `bytes` as a one-packet compound and checks it is `expected` and writes back identically.
func expectSinglePacket(_ bytes: [UInt8], _ expected: RTCPPacket, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let packets = try RTCPCompound.parse(bytes)
    #expect(packets == [expected], sourceLocation: sourceLocation)
    #expect(try RTCPCompound.serialized(packets) == bytes, sourceLocation: sourceLocation)
    #expect(expected.serializedSize == bytes.count, sourceLocation: sourceLocation)
}

@Test func senderReportRoundTripsByteExactly() throws {
    let block = RTCPReportBlock(
        ssrc: 0x5566_7788, fractionLost: 0x40, cumulativeLost: -2, extendedHighestSequenceNumber: 0x0001_0005,
        jitter: 32, lastSenderReport: CompactNTPTime(rawValue: 0x1B2C_8000),
        delaySinceLastSenderReport: CompactNTPTime(rawValue: 0x0001_8000))
    let report = RTCPSenderReport(
        ssrc: 0x1122_3344, ntpTime: NTPTime(seconds: 0xE54A_1B2C, fraction: 0x8000_0000), rtpTimestamp: 90000,
        packetCount: 100, octetCount: 16000, reportBlocks: [block])
    try expectSinglePacket(senderReportBytes, .senderReport(report))
}

@Test func receiverReportRoundTripsWithAProfileExtension() throws {
    let bytes = hex("""
        81 C9 00 08 | 01 02 03 04
        0A 0B 0C 0D | FF 7F FF FF | 00 00 FF FF | 00 00 01 00 | 00 00 00 00 | 00 00 00 00
        CA FE F0 0D
        """)
    let block = RTCPReportBlock(ssrc: 0x0A0B_0C0D, fractionLost: 255, cumulativeLost: 0x7F_FFFF,
                                extendedHighestSequenceNumber: 65535, jitter: 256)
    try expectSinglePacket(bytes, .receiverReport(RTCPReceiverReport(
        ssrc: 0x0102_0304, reportBlocks: [block], profileExtension: [0xCA, 0xFE, 0xF0, 0x0D])))
    try expectSinglePacket(hex("80 C9 00 01 01 02 03 04"), .receiverReport(RTCPReceiverReport(ssrc: 0x0102_0304)))
}

@Test func cumulativeLossIsClampedTo24BitsWhenWritten() throws {
    var block = RTCPReportBlock(ssrc: 1, cumulativeLost: 0x0100_0000)
    let high = try RTCPReceiverReport(ssrc: 2, reportBlocks: [block]).serialized()
    #expect(Array(high[13 ..< 16]) == [0x7F, 0xFF, 0xFF])
    block.cumulativeLost = -0x0100_0000
    let low = try RTCPReceiverReport(ssrc: 2, reportBlocks: [block]).serialized()
    #expect(Array(low[13 ..< 16]) == [0x80, 0x00, 0x00])
    guard case .receiverReport(let parsed) = try RTCPCompound.parse(low)[0] else { Issue.record("not an RR"); return }
    #expect(parsed.reportBlocks[0].cumulativeLost == -0x80_0000)
}

@Test func sourceDescriptionRoundTripsByteExactly() throws {
    let description = RTCPSourceDescription(chunks: [
        .init(ssrc: 0x1122_3344, items: [.init(type: .cname, text: "user@host"), .init(type: .name, text: "Al")]),
    ])
    try expectSinglePacket(sourceDescriptionBytes, .sourceDescription(description))
    #expect(description.chunks[0].cname == "user@host")
    // A chunk whose items end exactly on a word boundary still needs a whole word of nulls.
    let aligned = RTCPSourceDescription(ssrc: 7, cname: "ab")
    #expect(try aligned.serialized() == hex("81 CA 00 03 | 00 00 00 07 | 01 02 61 62 | 00 00 00 00"))
}

@Test func byeRoundTripsWithAndWithoutReason() throws {
    try expectSinglePacket(
        hex("81 CB 00 03 | 11 22 33 44 | 06 63 6C 6F 73 65 64 00"),
        .bye(RTCPBye(ssrcs: [0x1122_3344], reason: "closed")))
    try expectSinglePacket(hex("82 CB 00 02 | 00 00 00 01 | 00 00 00 02"), .bye(RTCPBye(ssrcs: [1, 2])))
    #expect(RTCPBye(ssrcs: [], reason: "x").reasonText == "x")
}

@Test func applicationDefinedRoundTripsByteExactly() throws {
    let app = RTCPApplicationDefined(subtype: 5, ssrc: 0x1122_3344, name: "NAME", data: [1, 2, 3, 4])
    try expectSinglePacket(hex("85 CC 00 03 | 11 22 33 44 | 4E 41 4D 45 | 01 02 03 04"), .applicationDefined(app))
    #expect(app.nameText == "NAME")
}

@Test func genericNACKRoundTripsAndExpandsToSequenceNumbers() throws {
    let nack = RTCPGenericNACK(senderSSRC: 0x1122_3344, mediaSSRC: 0x5566_7788, lostSequenceNumbers: [10, 11, 13])
    #expect(nack.items == [.init(packetID: 10, lostBitmask: 0x0005)])
    try expectSinglePacket(nackBytes, .genericNACK(nack))
    #expect(nack.lostSequenceNumbers == [10, 11, 13])

    // Across the wrap, a 16-wide window, then a new entry; duplicates are dropped.
    let lost: [UInt16] = [65534, 65535, 0, 14, 14, 15, 100]
    let wide = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
    #expect(wide.items == [.init(packetID: 65534, lostBitmask: 0x8003), .init(packetID: 15, lostBitmask: 0), .init(packetID: 100, lostBitmask: 0)])
    #expect(wide.lostSequenceNumbers == [65534, 65535, 0, 14, 15, 100])
    #expect(try RTCPCompound.parse(try wide.serialized()) == [.genericNACK(wide)])
}

@Test func pictureLossIndicationRoundTripsAndRejectsExtraBytes() throws {
    try expectSinglePacket(
        hex("81 CE 00 02 | 11 22 33 44 | 55 66 77 88"),
        .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 0x1122_3344, mediaSSRC: 0x5566_7788)))
    #expect(rtcpError(hex("81 CE 00 03 | 11 22 33 44 | 55 66 77 88 | 00 00 00 00")) == .badLength(packetType: 206, offset: 0))
}

@Test func fullIntraRequestRoundTripsWithSequenceNumbers() throws {
    let fir = RTCPFullIntraRequest(senderSSRC: 0x1122_3344, entries: [.init(ssrc: 0x5566_7788, sequenceNumber: 7)])
    try expectSinglePacket(hex("84 CE 00 04 | 11 22 33 44 | 00 00 00 00 | 55 66 77 88 | 07 00 00 00"), .fullIntraRequest(fir))
    #expect(rtcpError(hex("84 CE 00 03 | 11 22 33 44 | 00 00 00 00 | 55 66 77 88")) == .badLength(packetType: 206, offset: 0))
}

@Test func rembRoundTripsItsExponentAndMantissa() throws {
    // 1 Mbit/s = 250000 · 2^2: exponent 2, mantissa 0x3D090.
    let remb = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 0x1122_3344, bitrate: 1_000_000, ssrcs: [0x5566_7788])
    #expect(remb.encodedBitrate == (2, 0x3D090))
    try expectSinglePacket(
        hex("8F CE 00 05 | 11 22 33 44 | 00 00 00 00 | 52 45 4D 42 | 01 0B D0 90 | 55 66 77 88"),
        .receiverEstimatedMaxBitrate(remb))
    // Precision is lost above 2^18, rounding down.
    let rough = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_000_001, ssrcs: [])
    guard case .receiverEstimatedMaxBitrate(let parsed) = try RTCPCompound.parse(try rough.serialized())[0] else {
        Issue.record("not a REMB")
        return
    }
    #expect(parsed.bitrate == 1_000_000)
    // Exponent 63 with a full mantissa overflows 64 bits.
    #expect(rtcpError(hex("8F CE 00 04 | 00 00 00 01 | 00 00 00 00 | 52 45 4D 42 | 00 FF FF FF")) == .bitrateOverflow(offset: 17))
    // Another application-layer feedback is kept raw.
    let other = hex("8F CE 00 03 | 00 00 00 01 | 00 00 00 00 | 41 42 43 44")
    #expect(try RTCPCompound.parse(other) == [.raw(type: 206, fmt: 15, bytes: other)])
}

@Test func errorsInsideAPacketNameTheFieldsOffset() {
    // RC says two report blocks, only one is there.
    var truncated = senderReportBytes
    truncated[0] = 0x82
    #expect(rtcpError(truncated) == .truncatedPacket(packetType: 200, offset: 52))
    // SDES item whose length runs past the packet.
    #expect(rtcpError(hex("81 CA 00 02 | 00 00 00 01 | 01 09 61 62")) == .truncatedPacket(packetType: 202, offset: 8))
    // SDES chunk without its terminating null.
    #expect(rtcpError(hex("81 CA 00 02 | 00 00 00 01 | 01 02 61 62")) == .truncatedPacket(packetType: 202, offset: 12))
    // BYE reason longer than the packet.
    #expect(rtcpError(hex("81 CB 00 02 | 00 00 00 01 | 09 61 62 63")) == .truncatedPacket(packetType: 203, offset: 8))
    // Padding count of zero, and larger than the body.
    #expect(rtcpError(hex("A0 C9 00 01 | 00 00 00 00")) == .badPadding(count: 0, offset: 7))
    #expect(rtcpError(hex("A0 C9 00 01 | 00 00 00 09")) == .badPadding(count: 9, offset: 7))
    #expect(rtcpError(hex("40 C9 00 01 | 00 00 00 01")) == .badVersion(1, offset: 0))
    #expect(rtcpError(hex("80 C9 00")) == .truncatedHeader(offset: 0))
    #expect(rtcpError([]) == .empty)
}

// The bytes below are the shapes pion/rtcp's test vectors use for these refusals.

@Test func aGenericNACKWithoutEntriesIsRefused() {
    // RFC 4585 §6.2.1: the FCI holds at least one entry. Header, sender and media SSRC only.
    #expect(rtcpError(hex("81 CD 00 02 | 11 22 33 44 | 55 66 77 88")) == .noEntries(packetType: 205, offset: 0))
    // Behind a good packet the offset is the NACK's.
    #expect(rtcpError(nackBytes + hex("81 CD 00 02 | 11 22 33 44 | 55 66 77 88")) == .noEntries(packetType: 205, offset: 16))
    // An entry cut short by padding is not silently dropped either: P bit, 2 bytes of padding.
    #expect(rtcpError(hex("A1 CD 00 03 | 11 22 33 44 | 55 66 77 88 | 00 0A 00 02")) == .badLength(packetType: 205, offset: 0))
    // Nor can Confer write one.
    let empty = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, items: [])
    #expect(throws: RTCPError.notRepresentable("a generic NACK needs at least one entry")) {
        try RTCPCompound.serialized([.genericNACK(empty)])
    }
}

@Test func aFullIntraRequestWithoutEntriesIsRefused() {
    // RFC 5104 §4.3.1.1: at least one FCI entry.
    #expect(rtcpError(hex("84 CE 00 02 | 11 22 33 44 | 00 00 00 00")) == .noEntries(packetType: 206, offset: 0))
    let empty = RTCPFullIntraRequest(senderSSRC: 1, entries: [])
    #expect(throws: RTCPError.notRepresentable("a FIR needs at least one entry")) {
        try RTCPCompound.serialized([.fullIntraRequest(empty)])
    }
    // One entry still parses.
    #expect(rtcpError(hex("84 CE 00 04 | 11 22 33 44 | 00 00 00 00 | 55 66 77 88 | 07 00 00 00")) == nil)
}

@Test func anApplicationPacketWhosePaddingCutsAWordIsRefused() throws {
    // P bit, 4 words: SSRC, name, one data word whose last byte is a padding count of 2,
    // which would leave 2 bytes of data, not a multiple of 32 bits (RFC 3550 §6.7).
    #expect(rtcpError(hex("A5 CC 00 03 | 11 22 33 44 | 4E 41 4D 45 | 01 02 00 02")) == .badLength(packetType: 204, offset: 0))
    // A padding count of 4 removes a whole word and is fine: the data is empty.
    let packets = try RTCPCompound.parse(hex("A5 CC 00 03 | 11 22 33 44 | 4E 41 4D 45 | 00 00 00 04"))
    #expect(packets == [.applicationDefined(RTCPApplicationDefined(subtype: 5, ssrc: 0x1122_3344, name: "NAME"))])
}
