import Testing
import ConferMedia
@testable import ConferRTP

@Test func roundTripsCSRCsPaddingAndBothExtensionForms() throws {
    let oneByte = [RTPHeaderExtension(id: 1, data: [0x80]), RTPHeaderExtension(id: 14, data: Array(0 ..< 16))]
    let twoByte = [RTPHeaderExtension(id: 200, data: []), RTPHeaderExtension(id: 3, data: Array(repeating: 7, count: 40))]
    let cases: [(RTPHeader, Int)] = [
        (RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0), 0),
        (RTPHeader(payloadType: 127, sequenceNumber: 65535, timestamp: .max, ssrc: .max, marker: true,
                   csrcs: Array(1 ... 15)), 255),
        (RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 3000, ssrc: 5, extensions: oneByte), 4),
        (RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 3000, ssrc: 5, csrcs: [77], extensions: twoByte), 1),
        // Mixed: elements that would fit the one-byte form, forced into the two-byte form.
        (RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 3000, ssrc: 5, extensions: oneByte,
                   extensionForm: .twoByte(appBits: 0xA)), 3),
        // An empty one-byte block is kept as such.
        (RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 3000, ssrc: 5, extensionForm: .oneByte), 0),
    ]
    for (header, padding) in cases {
        let packet = RTPPacket(header: header, payload: [9, 8, 7, 6, 5], paddingSize: padding)
        let bytes = try packet.serialized()
        #expect(bytes.count == packet.serializedSize)
        let parsed = try RTPPacket(parsing: bytes)
        var expected = packet
        expected.header.extensionForm = packet.header.effectiveExtensionForm
        #expect(parsed == expected)
        #expect(try parsed.serialized() == bytes)
        if padding > 0 {
            #expect(bytes[0] & 0x20 != 0)
            #expect(bytes.last == UInt8(padding))
        }
    }
}

@Test func automaticFormPicksTwoByteOnlyWhenNeeded() {
    var header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 1, ssrc: 1)
    header.setExtension(id: 2, data: [1])
    #expect(header.effectiveExtensionForm == .oneByte)
    header.setExtension(id: 15, data: [1])
    #expect(header.effectiveExtensionForm == .twoByte(appBits: 0))
    header.removeExtension(id: 15)
    header.setExtension(id: 2, data: Array(repeating: 0, count: 17))
    #expect(header.effectiveExtensionForm == .twoByte(appBits: 0))
    header.setExtension(id: 2, data: [])
    #expect(header.effectiveExtensionForm == .twoByte(appBits: 0))
}

@Test func serializingReportsTooSmallBuffersAndUnwritableFields() throws {
    let packet = RTPPacket(header: RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3), payload: [1, 2, 3])
    var small = [UInt8](repeating: 0, count: 14)
    #expect(throws: RTPError.bufferTooSmall(needed: 15, available: 14)) {
        try small.withUnsafeMutableBytes { try packet.serialize(into: $0) }
    }
    var exact = [UInt8](repeating: 0, count: 15)
    let written = try exact.withUnsafeMutableBytes { try packet.serialize(into: $0) }
    #expect(written == 15)
    #expect(exact == hex("80 60 00 01 00 00 00 02 00 00 00 03 01 02 03"))

    var forced = packet
    forced.header.extensionForm = .oneByte
    forced.header.setExtension(id: 15, data: [1])
    #expect(throws: RTPError.extensionNotRepresentable(id: 15, length: 1)) { try forced.serialized() }
    var badType = packet
    badType.header.payloadType = 128
    #expect(throws: RTPError.fieldOutOfRange("payload type 128 is above 127")) { try badType.serialized() }
    var badPadding = packet
    badPadding.paddingSize = 256
    #expect(throws: RTPError.fieldOutOfRange("padding of 256 bytes, 0–255 fit")) { try badPadding.serialized() }
}

@Test func headerWritesStraightIntoACallerBuffer() throws {
    var header = RTPHeader(payloadType: 100, sequenceNumber: 65535, timestamp: 1, ssrc: 2)
    var buffer = [UInt8](repeating: 0xEE, count: 64)
    let payload: [UInt8] = [0x11, 0x22]
    for _ in 0 ..< 2 {
        let written = try buffer.withUnsafeMutableBytes { out in
            try payload.withUnsafeBytes { try header.serialize(into: out, payload: $0) }
        }
        #expect(written == 14)
        #expect(try withView(Array(buffer[..<written])) { $0.sequenceNumber } == header.sequenceNumber)
        header.sequenceNumber &+= 1
    }
    #expect(header.sequenceNumber == 1)
}

@Test func randomMutationsNeverCrashAndParsedPacketsRoundTrip() throws {
    var random = SeededRandom(seed: 0x5EED)
    var seeds: [[UInt8]] = [wiresharkExample]
    seeds.append(try RTPPacket(
        header: RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [4],
                          extensions: [RTPHeaderExtension(id: 40, data: [1, 2, 3])]),
        payload: [5, 6], paddingSize: 3).serialized())
    var parsedCount = 0
    for round in 0 ..< 3000 {
        var bytes = seeds[round % seeds.count]
        for _ in 0 ..< 1 + Int(random.next() % 4) {
            bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
        }
        bytes.removeLast(Int(random.next() % 4))
        guard let packet = try? RTPPacket(parsing: bytes) else { continue }
        parsedCount += 1
        // Whatever parsed must survive being written and read again.
        if let again = try? packet.serialized() {
            let reparsed = try RTPPacket(parsing: again)
            #expect(reparsed.header.sequenceNumber == packet.header.sequenceNumber)
            #expect(reparsed.payload == packet.payload)
            #expect(reparsed.header.extensions == packet.header.extensions)
        }
    }
    #expect(parsedCount > 100)
}
