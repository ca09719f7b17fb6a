import ConferMedia
@testable import ConferNet
import Testing

/// The STUN codec against RFC 5769's test vectors, bad input, and random messages.
@Suite struct STUNMessageTests {
    static let transactionID: [UInt8] = [0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE]

    /// RFC 5769 §2.1: a Binding request with SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME,
    /// MESSAGE-INTEGRITY and FINGERPRINT (the USERNAME padded with spaces).
    static let sampleRequest: [UInt8] = [
        0x00, 0x01, 0x00, 0x58, 0x21, 0x12, 0xA4, 0x42, 0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE,
        0x80, 0x22, 0x00, 0x10, 0x53, 0x54, 0x55, 0x4E, 0x20, 0x74, 0x65, 0x73, 0x74, 0x20, 0x63, 0x6C, 0x69, 0x65, 0x6E, 0x74,
        0x00, 0x24, 0x00, 0x04, 0x6E, 0x00, 0x01, 0xFF,
        0x80, 0x29, 0x00, 0x08, 0x93, 0x2F, 0xF9, 0xB1, 0x51, 0x26, 0x3B, 0x36,
        0x00, 0x06, 0x00, 0x09, 0x65, 0x76, 0x74, 0x6A, 0x3A, 0x68, 0x36, 0x76, 0x59, 0x20, 0x20, 0x20,
        0x00, 0x08, 0x00, 0x14, 0x9A, 0xEA, 0xA7, 0x0C, 0xBF, 0xD8, 0xCB, 0x56, 0x78, 0x1E, 0xF2, 0xB5, 0xB2, 0xD3, 0xF2, 0x49,
        0xC1, 0xB5, 0x71, 0xA2,
        0x80, 0x28, 0x00, 0x04, 0xE5, 0x7A, 0x3B, 0xCF,
    ]
    /// RFC 5769 §2.2: a success response mapping 192.0.2.1:32853.
    static let sampleIPv4Response: [UInt8] = [
        0x01, 0x01, 0x00, 0x3C, 0x21, 0x12, 0xA4, 0x42, 0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE,
        0x80, 0x22, 0x00, 0x0B, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6F, 0x72, 0x20,
        0x00, 0x20, 0x00, 0x08, 0x00, 0x01, 0xA1, 0x47, 0xE1, 0x12, 0xA6, 0x43,
        0x00, 0x08, 0x00, 0x14, 0x2B, 0x91, 0xF5, 0x99, 0xFD, 0x9E, 0x90, 0xC3, 0x8C, 0x74, 0x89, 0xF9, 0x2A, 0xF9, 0xBA, 0x53,
        0xF0, 0x6B, 0xE7, 0xD7,
        0x80, 0x28, 0x00, 0x04, 0xC0, 0x7D, 0x4C, 0x96,
    ]
    /// RFC 5769 §2.3: a success response mapping [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let sampleIPv6Response: [UInt8] = [
        0x01, 0x01, 0x00, 0x48, 0x21, 0x12, 0xA4, 0x42, 0xB7, 0xE7, 0xA7, 0x01, 0xBC, 0x34, 0xD6, 0x86, 0xFA, 0x87, 0xDF, 0xAE,
        0x80, 0x22, 0x00, 0x0B, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6F, 0x72, 0x20,
        0x00, 0x20, 0x00, 0x14, 0x00, 0x02, 0xA1, 0x47, 0x01, 0x13, 0xA9, 0xFA, 0xA5, 0xD3, 0xF1, 0x79, 0xBC, 0x25, 0xF4, 0xB5,
        0xBE, 0xD2, 0xB9, 0xD9,
        0x00, 0x08, 0x00, 0x14, 0xA3, 0x82, 0x95, 0x4E, 0x4B, 0xE6, 0x7B, 0xF1, 0x17, 0x84, 0xC9, 0x7C, 0x82, 0x92, 0xC2, 0x75,
        0xBF, 0xE3, 0xED, 0x41,
        0x80, 0x28, 0x00, 0x04, 0xC8, 0xFB, 0x0B, 0x4C,
    ]

    @Test func rfc5769SampleRequestParsesWithItsFingerprint() throws {
        let request = try STUNMessage(parsing: Self.sampleRequest)
        #expect(request.messageClass == .request && request.method == STUNMessage.bindingMethod)
        #expect(request.transactionID == Self.transactionID)
        #expect(request.attributes.map(\.type) == [0x8022, 0x0024, 0x8029, 0x0006, 0x0008] && request.fingerprinted)
        #expect(request.attribute(STUNAttribute.software)?.value == Array("STUN test client".utf8))
        #expect(request.attribute(STUNAttribute.username)?.value == Array("evtj:h6vY".utf8), "the value without its padding")
        #expect(STUNMessage.isSTUN(Self.sampleRequest))
    }

    @Test func rfc5769SampleResponsesMapTheirAddresses() throws {
        let v4 = try STUNMessage(parsing: Self.sampleIPv4Response)
        #expect(v4.messageClass == .successResponse && v4.method == STUNMessage.bindingMethod)
        #expect(v4.attribute(STUNAttribute.software)?.value == Array("test vector".utf8))
        let mapped4 = try #require(v4.attribute(STUNAttribute.xorMappedAddress))
        #expect(try mapped4.address(transactionID: v4.transactionID) == UDPAddress(host: "192.0.2.1", port: 32853))

        let v6 = try STUNMessage(parsing: Self.sampleIPv6Response)
        let mapped6 = try #require(v6.attribute(STUNAttribute.xorMappedAddress))
        #expect(try mapped6.address(transactionID: v6.transactionID) == UDPAddress(host: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853))

        // Written the other way, the same addresses give the vectors' bytes.
        #expect(STUNAttribute.xorMapped(UDPAddress(host: "192.0.2.1", port: 32853), transactionID: Self.transactionID) == mapped4)
        #expect(STUNAttribute.xorMapped(UDPAddress(host: "2001:db8:1234:5678:11:2233:4455:6677", port: 32853),
                                        transactionID: Self.transactionID) == mapped6)
        // A dual-stack socket's view of an IPv4 peer is written as the IPv4 address it is.
        #expect(STUNAttribute.xorMapped(UDPAddress(host: "::ffff:192.0.2.1", port: 32853), transactionID: Self.transactionID) == mapped4)
        #expect(STUNAttribute.xorMapped(UDPAddress(host: "example.com", port: 1), transactionID: Self.transactionID) == nil)

        // From the bytes a socket reports, the same attributes, without the text between.
        let v6Bytes: [UInt8] = [0x20, 0x01, 0x0D, 0xB8, 0x12, 0x34, 0x56, 0x78, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77]
        #expect(STUNAttribute.xorMapped(addressBytes: [192, 0, 2, 1], port: 32853, transactionID: Self.transactionID) == mapped4)
        #expect(STUNAttribute.xorMapped(addressBytes: v6Bytes, port: 32853, transactionID: Self.transactionID) == mapped6)
        let dualStack = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 192, 0, 2, 1]
        #expect(STUNAttribute.xorMapped(addressBytes: dualStack, port: 32853, transactionID: Self.transactionID) == mapped4)
        for (raw, port) in [([UInt8](), 1), ([1, 2, 3], 1), ([192, 0, 2, 1], 65_536), ([192, 0, 2, 1], -1)] {
            #expect(STUNAttribute.xorMapped(addressBytes: raw, port: port, transactionID: Self.transactionID) == nil, "\(raw) \(port)")
        }
        // An IPv6 address needs the whole transaction id for its mask; an IPv4 one none of it.
        #expect(STUNAttribute.xorMapped(addressBytes: v6Bytes, port: 1, transactionID: Array(Self.transactionID.prefix(11))) == nil)
        #expect(STUNAttribute.xorMapped(addressBytes: [192, 0, 2, 1], port: 32853, transactionID: []) == mapped4)
    }

    /// What Confer writes reads back the same, with a FINGERPRINT that checks, and the
    /// message types RFC 5769 shows (0x0001 request, 0x0101 success, 0x0111 error).
    @Test func whatIsWrittenReadsBack() throws {
        let v4 = try STUNMessage(parsing: Self.sampleIPv4Response)
        let written = v4.encoded()
        #expect(Array(written.prefix(4)) == [0x01, 0x01, 0x00, 0x3C], "the same type and length")
        #expect(try STUNMessage(parsing: written) == v4)
        #expect(Array(written.suffix(8).prefix(4)) == [0x80, 0x28, 0x00, 0x04], "FINGERPRINT stays last")
        // A transaction id set to another length afterwards: the length field still counts
        // what follows the header and the id as written.
        var odd = v4
        odd.transactionID = [1, 2, 3]
        let oddBytes = odd.encoded()
        #expect(Int(oddBytes[2]) << 8 | Int(oddBytes[3]) == oddBytes.count - 8 - 3)

        let request = STUNMessage(class: .request, transactionID: Self.transactionID).encoded()
        #expect(Array(request.prefix(4)) == [0x00, 0x01, 0x00, 0x08])
        let error = STUNMessage(class: .errorResponse, transactionID: Self.transactionID, fingerprinted: false).encoded()
        #expect(Array(error.prefix(4)) == [0x01, 0x11, 0x00, 0x00])
        let indication = STUNMessage(method: 0x0ABC, class: .indication, transactionID: Self.transactionID)
        #expect(try STUNMessage(parsing: indication.encoded()) == indication, "a 12-bit method's bits go around the class bits and back")
    }

    @Test func badInputIsATypedError() {
        func kind(_ bytes: [UInt8]) -> STUNErrorKind? {
            let result = Result { () throws(STUNError) in try STUNMessage(parsing: bytes) }
            if case .failure(let error) = result { return error.kind }
            return nil
        }
        var damaged = Self.sampleIPv4Response
        damaged[24] ^= 0x01 // inside SOFTWARE
        #expect(kind(damaged) == .badFingerprint)
        #expect(kind(Array(Self.sampleIPv4Response.prefix(19))) == .truncated)
        #expect(kind(Array(Self.sampleIPv4Response.dropLast(4))) == .truncated, "shorter than the header's length")
        var cookie = Self.sampleIPv4Response
        cookie[4] = 0
        #expect(kind(cookie) == .notSTUN)
        var topBits = Self.sampleIPv4Response
        topBits[0] = 0xC1
        #expect(kind(topBits) == .notSTUN, "RTP's first byte")
        var odd = Self.sampleIPv4Response
        odd[3] = 0x3D
        #expect(kind(odd) == .notSTUN, "a length that is not a multiple of 4")
        var overrun = Self.sampleIPv4Response
        overrun[22] = 0x00; overrun[23] = 0x40 // SOFTWARE claims 64 bytes
        #expect(kind(overrun) == .malformedAttribute)
        // FINGERPRINT anywhere but last.
        let early = STUNMessage(class: .request, transactionID: Self.transactionID).encoded() + [0x80, 0x22, 0x00, 0x00]
        var relength = early
        relength[3] = UInt8(early.count - 20)
        #expect(kind(relength) == .malformedAttribute)
        #expect(throws: STUNError.self) {
            try STUNAttribute(type: STUNAttribute.xorMappedAddress, value: [0, 3, 0, 0, 1, 2, 3, 4]).address(transactionID: Self.transactionID)
        }
        #expect(throws: STUNError.self) {
            try STUNAttribute(type: STUNAttribute.xorMappedAddress, value: [0, 1, 0, 0, 1, 2, 3]).address(transactionID: Self.transactionID)
        }
    }

    /// Random bytes give a message or a typed error; random messages read back as written.
    @Test func randomInputNeverCrashesAndRandomMessagesReadBack() throws {
        var random = SeededRandom(seed: 5769)
        var parsed = 0
        for round in 0 ..< 20_000 {
            var bytes = Self.sampleIPv4Response
            if round % 2 == 0 {
                bytes = (0 ..< Int.random(in: 0 ... 96, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            } else {
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
                    bytes[Int.random(in: 0 ..< bytes.count, using: &random)] = UInt8.random(in: 0 ... 255, using: &random)
                }
            }
            if let message = try? STUNMessage(parsing: bytes) {
                parsed += 1
                #expect(try STUNMessage(parsing: message.encoded()) == message)
            }
        }
        #expect(parsed > 0, "some mutations keep a valid message (bytes the fingerprint does not cover)")
        for _ in 0 ..< 2000 {
            let attributes = (0 ..< Int.random(in: 0 ... 5, using: &random)).map { _ in
                STUNAttribute(type: UInt16.random(in: 0 ... 0x8027, using: &random),
                              value: (0 ..< Int.random(in: 0 ... 21, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) })
            }
            let message = STUNMessage(method: UInt16.random(in: 0 ... 0xFFF, using: &random),
                                      class: STUNMessage.Class(rawValue: UInt8.random(in: 0 ... 3, using: &random))!,
                                      transactionID: (0 ..< 12).map { _ in UInt8.random(in: 0 ... 255, using: &random) },
                                      attributes: attributes, fingerprinted: Bool.random(using: &random))
            #expect(try STUNMessage(parsing: message.encoded()) == message)
        }
    }
}
