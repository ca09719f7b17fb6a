import ConferRTP
import Testing

/// The consent check's wire form: an empty receiver report, then an APP packet `CNST`.
@Suite struct RTCPConsentCheckTests {
    @Test(arguments: [RTCPConsentCheck.Kind.challenge, .answer])
    func aCheckSurvivesTheCompoundAndStartsWithAReceiverReport(kind: RTCPConsentCheck.Kind) throws {
        let nonce: UInt128 = 0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210
        let check = RTCPConsentCheck(kind, ssrc: 0x7000_0011, nonce: nonce)
        let bytes = try RTCPCompound.serialized(check.packets)
        #expect(bytes.count == 8 + 12 + 16)
        #expect(bytes[1] == 201, "RFC 3550 §6.1: the compound starts with a receiver report")
        #expect(Array(bytes[4 ..< 8]) == [0x70, 0x00, 0x00, 0x11], "the SSRC in the clear, where routing reads it")
        #expect(Array(bytes[20 ..< 36]) == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10],
                "the nonce big-endian")
        let parsed = try #require(RTCPConsentCheck(try RTCPCompound.parse(bytes)))
        #expect(parsed == check)
    }

    @Test func otherApplicationPacketsAreNoCheck() {
        let data = [UInt8](repeating: 7, count: 16)
        #expect(RTCPConsentCheck([.applicationDefined(RTCPApplicationDefined(subtype: 0, ssrc: 1, name: "XXXX", data: data))]) == nil,
                "another name")
        #expect(RTCPConsentCheck([.applicationDefined(RTCPApplicationDefined(subtype: 2, ssrc: 1, name: "CNST", data: data))]) == nil,
                "an unknown subtype")
        #expect(RTCPConsentCheck([.applicationDefined(RTCPApplicationDefined(subtype: 1, ssrc: 1, name: "CNST", data: Array(data[0 ..< 12])))])
                == nil, "a short nonce")
        #expect(RTCPConsentCheck([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: []))]) == nil, "no APP packet")
        let check = RTCPConsentCheck([
            .applicationDefined(RTCPApplicationDefined(subtype: 2, ssrc: 1, name: "CNST", data: data)),
            .applicationDefined(RTCPApplicationDefined(subtype: 1, ssrc: 9, name: "CNST", data: data)),
        ])
        #expect(check?.kind == .answer && check?.ssrc == 9, "the first APP packet that is a check")
    }
}
