import Testing
import ConferMedia
@testable import ConferRTP

/// A packet of type 210, which Confer does not know.
let unknownPacketBytes = hex("83 D2 00 02 | DE AD BE EF | 01 02 03 04")

@Test func aCompoundWithAnUnknownTypeKeepsItRaw() throws {
    let compound = senderReportBytes + sourceDescriptionBytes + unknownPacketBytes + nackBytes
    let packets = try RTCPCompound.parse(compound)
    #expect(packets.count == 4)
    guard case .senderReport(let report) = packets[0] else { Issue.record("first is not an SR"); return }
    #expect(report.ssrc == 0x1122_3344)
    guard case .sourceDescription(let description) = packets[1] else { Issue.record("second is not SDES"); return }
    #expect(description.chunks[0].cname == "user@host")
    #expect(packets[2] == .raw(type: 210, fmt: 3, bytes: unknownPacketBytes))
    guard case .genericNACK(let nack) = packets[3] else { Issue.record("fourth is not a NACK"); return }
    #expect(nack.lostSequenceNumbers == [10, 11, 13])

    #expect(RTCPCompound.serializedSize(packets) == compound.count)
    #expect(try RTCPCompound.serialized(packets) == compound)
    var small = [UInt8](repeating: 0, count: compound.count - 1)
    #expect(throws: RTCPError.bufferTooSmall(needed: compound.count, available: compound.count - 1)) {
        try small.withUnsafeMutableBytes { try RTCPCompound.serialize(packets, into: $0) }
    }
}

@Test func aBadLengthInsideACompoundNamesItsOffset() {
    var sdes = sourceDescriptionBytes
    sdes[3] = 0x0A  // claims 11 words; 10 remain in the compound
    let compound = senderReportBytes + sdes + nackBytes
    #expect(rtcpError(compound) == .lengthBeyondBuffer(words: 11, offset: 52))
    // A truncated header after a good packet.
    #expect(rtcpError(senderReportBytes + [0x81, 0xCA]) == .truncatedHeader(offset: 52))
}

@Test func reducedSizeFeedbackIsAcceptedAlone() throws {
    let pli = hex("81 CE 00 02 | 11 22 33 44 | 55 66 77 88")
    #expect(try RTCPCompound.parse(pli) == [.pictureLossIndication(.init(senderSSRC: 0x1122_3344, mediaSSRC: 0x5566_7788))])
    #expect(try RTCPCompound.parse(nackBytes + pli).count == 2)
}

@Test func paddingOnTheLastPacketIsStripped() throws {
    // An RR with 4 bytes of padding (P bit, count 4).
    let bytes = hex("A0 C9 00 02 | 01 02 03 04 | 00 00 00 04")
    #expect(try RTCPCompound.parse(bytes) == [.receiverReport(RTCPReceiverReport(ssrc: 0x0102_0304))])
}

@Test func theReaderWalksACompoundWithoutDecoding() throws {
    let compound = senderReportBytes + unknownPacketBytes
    try compound.withUnsafeBytes { raw in
        var reader = RTCPCompoundReader(raw)
        let first = try #require(try reader.next())
        #expect((first.offset, first.packetType, first.count, first.bytes.count) == (0, 200, 1, 52))
        let second = try #require(try reader.next())
        #expect((second.offset, second.packetType, second.count, second.body.count) == (52, 210, 3, 8))
        #expect(try reader.next() == nil)
    }
}

@Test func randomMutationsOfCompoundsNeverCrashAndRoundTrip() throws {
    var random = SeededRandom(seed: 0xC0FFEE)
    let tcc = try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 3, packets: [
        .init(sequenceNumber: 10, arrival: .milliseconds(100)), .init(sequenceNumber: 12, arrival: .milliseconds(90)),
    ]).serialized()
    let seed = senderReportBytes + sourceDescriptionBytes + unknownPacketBytes + nackBytes + tcc
    var parsedCount = 0
    for _ in 0 ..< 3000 {
        var bytes = seed
        for _ in 0 ..< 1 + Int(random.next() % 3) {
            bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
        }
        guard let packets = try? RTCPCompound.parse(bytes) else { continue }
        parsedCount += 1
        let again = try RTCPCompound.serialized(packets)
        #expect(try RTCPCompound.parse(again) == packets)
    }
    #expect(parsedCount > 100)
}
