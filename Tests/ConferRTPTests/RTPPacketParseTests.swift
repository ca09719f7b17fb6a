import Testing
import ConferMedia
@testable import ConferRTP

/// A packet laid out by hand the way Wireshark's dissector shows it:
///
///     Real-Time Transport Protocol
///       10.. .... = Version: RFC 1889 Version (2)
///       ..0. .... = Padding: False
///       ...1 .... = Extension: True
///       .... 0010 = Contributing source identifiers count: 2
///       1... .... = Marker: True
///       Payload type: DynamicRTP-Type-96 (96)
///       Sequence number: 4660 (0x1234)
///       Timestamp: 3735928559 (0xdeadbeef)
///       Synchronization Source identifier: 0x11223344
///       Contributing Source identifier: 0xcafebabe, 0x01020304
///       Defined by profile: RFC 5285 Header Extension (One-Byte Header) (0xbede)
///       Extension length: 2
///         RFC 5285 Header Extension (One-Byte Header): id 1, length 1: ff
///         RFC 5285 Header Extension (One-Byte Header): id 2, length 3: 01 02 03
///         padding: 00 00
///       Payload: aabbcc
let wiresharkExample = hex("""
    92 E0 12 34 | DE AD BE EF | 11 22 33 44 | CA FE BA BE | 01 02 03 04
    BE DE 00 02 | 10 FF 22 01 | 02 03 00 00
    AA BB CC
    """)

@Test func parsesEveryFieldOfAHandWrittenPacket() throws {
    try withView(wiresharkExample) { (view) throws in
        #expect(view.hasPadding == false)
        #expect(view.hasExtension)
        #expect(view.csrcCount == 2)
        #expect(view.marker)
        #expect(view.payloadType == 96)
        #expect(view.sequenceNumber == 0x1234)
        #expect(view.timestamp == 0xDEAD_BEEF)
        #expect(view.ssrc == 0x1122_3344)
        #expect(view.csrc(at: 0) == 0xCAFE_BABE)
        #expect(view.csrc(at: 1) == 0x0102_0304)
        #expect(view.extensionProfile == 0xBEDE)
        #expect(view.extensionForm == .oneByte)
        #expect(view.headerSize == 32)
        #expect(view.paddingSize == 0)
        #expect(Array(view.payload) == [0xAA, 0xBB, 0xCC])
        let elements = view.extensions.map { ($0.id, Array($0.data), $0.offset) }
        #expect(elements.count == 2)
        #expect(elements[0] == (1, [0xFF], 25))
        #expect(elements[1] == (2, [0x01, 0x02, 0x03], 27))
        #expect(try view.extensionValue(RTPAudioLevel.self, id: 1) == RTPAudioLevel(level: 127, voiceActivity: true))
        #expect(try view.extensionValue(RTPAbsoluteSendTime.self, id: 2)?.rawValue == 0x010203)
        #expect(view.extensionData(id: 9) == nil)
    }
    let packet = try RTPPacket(parsing: wiresharkExample)
    #expect(packet.header.csrcs == [0xCAFE_BABE, 0x0102_0304])
    #expect(packet.header.extensions == [RTPHeaderExtension(id: 1, data: [0xFF]), RTPHeaderExtension(id: 2, data: [1, 2, 3])])
    #expect(try packet.serialized() == wiresharkExample)
}

/// RFC 8285 §4.2's one-byte example: three elements of 1, 2 and 4 data bytes (L=0, 1, 3)
/// and two bytes of padding in a block of three words.
@Test func parsesTheRFC8285OneByteExample() throws {
    let bytes = hex("""
        90 60 00 01 | 00 00 00 0A | 00 00 00 0B
        BE DE 00 03 | 10 AA 21 BB | BB 33 CC CC | CC CC 00 00
        """)
    try withView(bytes) { (view) throws in
        let elements = view.extensions.map { RTPHeaderExtension(id: $0.id, data: Array($0.data)) }
        #expect(elements == [
            RTPHeaderExtension(id: 1, data: [0xAA]),
            RTPHeaderExtension(id: 2, data: [0xBB, 0xBB]),
            RTPHeaderExtension(id: 3, data: [0xCC, 0xCC, 0xCC, 0xCC]),
        ])
        #expect(view.payload.isEmpty)
    }
    #expect(try RTPPacket(parsing: bytes).serialized() == bytes)
}

/// RFC 8285 §4.3's two-byte example: an element with no data, one with 1 byte, a padding
/// byte, and one with 4 bytes.
@Test func parsesTheRFC8285TwoByteExample() throws {
    let bytes = hex("""
        90 60 00 01 | 00 00 00 0A | 00 00 00 0B
        10 00 00 03 | 01 00 02 01 | AA 00 03 04 | BB BB BB BB
        """)
    try withView(bytes) { (view) throws in
        #expect(view.extensionForm == .twoByte(appBits: 0))
        let elements = view.extensions.map { RTPHeaderExtension(id: $0.id, data: Array($0.data)) }
        #expect(elements == [
            RTPHeaderExtension(id: 1, data: []),
            RTPHeaderExtension(id: 2, data: [0xAA]),
            RTPHeaderExtension(id: 3, data: [0xBB, 0xBB, 0xBB, 0xBB]),
        ])
    }
    // Our writer does not reproduce the interior padding byte, so it packs one byte
    // tighter; the elements survive the round trip.
    let packet = try RTPPacket(parsing: bytes)
    let reparsed = try RTPPacket(parsing: try packet.serialized())
    #expect(reparsed == packet)
}

@Test func idFifteenEndsOneByteParsingAndKeepsWhatCameBefore() throws {
    // id 1 (1 byte), then id 15 whose length must be ignored, then what would be id 2.
    let bytes = hex("""
        90 60 00 01 | 00 00 00 0A | 00 00 00 0B
        BE DE 00 02 | 10 AA F3 20 | BB 00 00 00
        """)
    try withView(bytes) { (view) throws in
        #expect(view.extensions.map(\.id) == [1])
        #expect(view.extensionData(id: 2) == nil)
    }
}

@Test func typedAccessorsReadNegotiatedIDs() throws {
    let map = try RTPExtensionMap([
        RTPExtensionMap.audioLevelURI: 3,
        RTPExtensionMap.transportSequenceNumberURI: 5,
        RTPExtensionMap.absoluteSendTimeURI: 14,
    ])
    var header = RTPHeader(payloadType: 111, sequenceNumber: 7, timestamp: 960, ssrc: 42)
    header.setExtensionValue(RTPAudioLevel(level: 30, voiceActivity: false), id: 3)
    header.setExtensionValue(RTPTransportSequenceNumber(0xFFFE), id: 5)
    header.setExtensionValue(RTPAbsoluteSendTime(.seconds(1.5)), id: 14)
    let bytes = try RTPPacket(header: header, payload: [1, 2, 3]).serialized()
    #expect(bytes.count == 12 + 4 + 12 + 3)
    try withView(bytes) { (view) throws in
        #expect(try view.audioLevel(map) == RTPAudioLevel(level: 30, voiceActivity: false))
        #expect(try view.audioLevel(map)?.dBov == -30)
        #expect(try view.transportSequenceNumber(map) == 0xFFFE)
        // 1.5 s in 6.18 fixed point is 1.5 · 2^18.
        #expect(try view.absoluteSendTime(map)?.rawValue == 393_216)
        #expect(try view.absoluteSendTime(map)?.sinceWrap == .milliseconds(1500))
        #expect(try view.absoluteSendTime(RTPExtensionMap()) == nil)
    }
}

@Test func absoluteSendTimeWrapsEverySixtyFourSeconds() {
    #expect(RTPAbsoluteSendTime(.seconds(64)).rawValue == 0)
    #expect(RTPAbsoluteSendTime(.seconds(65)).rawValue == 1 << 18)
    #expect(RTPAbsoluteSendTime(Timestamp(microseconds: -1_000_000)).rawValue == 63 << 18)
    #expect(RTPAbsoluteSendTime(rawValue: 0xFFFF_FFFF).rawValue == 0xFF_FFFF)
}

@Test func aTypedAccessorRejectsAnElementOfTheWrongSize() throws {
    // id 3 carries 2 bytes, but audio level is 1 byte.
    let bytes = hex("90 60 00 01 00 00 00 0A 00 00 00 0B BE DE 00 01 31 AA BB 00")
    try withView(bytes) { (view) throws in
        #expect(throws: RTPError.badExtensionValue(id: 3, length: 2, offset: 17)) {
            try view.extensionValue(RTPAudioLevel.self, id: 3)
        }
    }
}

@Test func nonRFC8285ExtensionsAreKeptOpaque() throws {
    let bytes = hex("90 60 00 01 00 00 00 0A 00 00 00 0B 12 34 00 01 DE AD BE EF 55")
    try withView(bytes) { (view) throws in
        #expect(view.extensionProfile == 0x1234)
        #expect(view.extensionForm == nil)
        #expect(view.extensions.isEmpty)
        #expect(Array(view.extensionBlock) == [0xDE, 0xAD, 0xBE, 0xEF])
    }
    let packet = try RTPPacket(parsing: bytes)
    #expect(packet.header.opaqueExtension == RTPOpaqueHeaderExtension(profile: 0x1234, data: [0xDE, 0xAD, 0xBE, 0xEF]))
    #expect(try packet.serialized() == bytes)
}

@Test func arraysCanBeViewedWithoutCopying() throws {
    #expect(try RTPPacketView.withView(of: wiresharkExample) { $0.ssrc } == 0x1122_3344)
    #expect(throws: RTPError.truncatedHeader(length: 3)) { try RTPPacketView.withView(of: [0x80, 0, 0]) { $0.ssrc } }
}
