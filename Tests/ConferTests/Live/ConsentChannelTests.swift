import Testing
import Confer
import ConferMedia
import ConferRTP
import ConferSRTP
@testable import ConferLive

/// Consent checks in SRTCP between two sides that each hold the other's key.
@Suite struct ConsentChannelTests {
    let memberKey: SRTPMasterKey
    let hostKey: SRTPMasterKey
    let strangerKey: SRTPMasterKey

    init() throws {
        memberKey = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: (0 ..< 30).map { UInt8($0) })
        hostKey = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: (0 ..< 30).map { UInt8(100 + $0) })
        strangerKey = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: (0 ..< 30).map { UInt8(200 + $0 % 50) })
    }

    @Test func aCheckOpensOnlyUnderTheSendersKeyAndOnlyOnce() throws {
        let member = try ConsentChannel(ssrc: LiveMeetingPlan.consentSSRC(slot: 3), sendKey: memberKey, receiveKey: hostKey)
        let host = try ConsentChannel(ssrc: LiveMeetingPlan.hostConsentSSRC(slot: 3), sendKey: hostKey, receiveKey: memberKey)
        let stranger = try ConsentChannel(ssrc: LiveMeetingPlan.hostConsentSSRC(slot: 3), sendKey: hostKey, receiveKey: strangerKey)
        let nonce: UInt128 = 0xDEAD_BEEF << 64 | 42
        let challenge = try #require(host.seal(.challenge, nonce: nonce))
        #expect(challenge.count == 36 + 4 + 10, "a compound of 36 bytes, the SRTCP index and an 80-bit tag")
        #expect(challenge.withUnsafeBytes { LiveMeetingPlan.isConsentCheck($0) })
        let opened = challenge.withUnsafeBytes { member.open($0) }
        #expect(opened == RTCPConsentCheck(.challenge, ssrc: LiveMeetingPlan.hostConsentSSRC(slot: 3), nonce: nonce))
        #expect(challenge.withUnsafeBytes { member.open($0) } == nil, "replayed: refused")
        let answer = try #require(member.seal(.answer, nonce: nonce))
        #expect(answer.withUnsafeBytes { stranger.open($0) } == nil, "under another key: refused")
        var tampered = answer
        tampered[20] ^= 1
        #expect(tampered.withUnsafeBytes { host.open($0) } == nil, "tampered: refused")
        #expect(answer.withUnsafeBytes { host.open($0) }?.nonce == nonce)
        #expect(member.checksRefused == 1 && host.checksRefused == 1 && stranger.checksRefused == 1)
    }

    @Test func theNonceTravelsEncrypted() throws {
        let host = try ConsentChannel(ssrc: LiveMeetingPlan.hostConsentSSRC(slot: 1), sendKey: hostKey, receiveKey: memberKey)
        let nonce: UInt128 = 0x1111_2222_3333_4444_5555_6666_7777_8888
        let sealed = try #require(host.seal(.challenge, nonce: nonce))
        let plain = try RTCPCompound.serialized(RTCPConsentCheck(.challenge, ssrc: host.ssrc, nonce: nonce).packets)
        #expect(Array(sealed[0 ..< 8]) == Array(plain[0 ..< 8]), "SRTCP leaves the first header and SSRC in the clear")
        #expect(Array(sealed[20 ..< 36]) != Array(plain[20 ..< 36]), "and encrypts the rest, the nonce with it")
    }

    @Test func onlyTheConsentRangeRoutesToTheChannel() throws {
        func route(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { LiveMeetingPlan.isConsentCheck($0) } }
        let report = try RTCPCompound.serialized([.receiverReport(RTCPReceiverReport(ssrc: LiveMeetingPlan.receiverSSRC(slot: 2), reportBlocks: []))])
        #expect(!route(report), "a member's own feedback goes to the pipelines")
        let hostReport = try RTCPCompound.serialized([.receiverReport(RTCPReceiverReport(ssrc: LiveMeetingPlan.hostReceiverSSRC(slot: 2), reportBlocks: []))])
        #expect(!route(hostReport))
        let check = try RTCPCompound.serialized(RTCPConsentCheck(.answer, ssrc: LiveMeetingPlan.consentSSRC(slot: 2), nonce: 1).packets)
        #expect(route(check))
        var media = [UInt8](repeating: 0, count: 20)
        media[0] = 0x80
        media[1] = 96
        media[4] = 0x70
        #expect(!route(media), "RTP, whatever its bytes 4…7 hold")
        #expect(!route(Array(check[0 ..< 7])), "too short to name an SSRC")
    }

    @Test func aDatagramsSSRCNamesTheMemberThatSentItAndNoneOfTheHosts() throws {
        func slot(_ bytes: [UInt8]) -> UInt32? { bytes.withUnsafeBytes { LiveMeetingPlan.memberSlot(of: $0) } }
        func rtp(ssrc: UInt32) -> [UInt8] {
            var bytes: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 0] + withUnsafeBytes(of: ssrc.bigEndian, Array.init)
            bytes += [UInt8](repeating: 0, count: 20)
            return bytes
        }
        func rtcp(ssrc: UInt32) throws -> [UInt8] {
            try RTCPCompound.serialized([.receiverReport(RTCPReceiverReport(ssrc: ssrc, reportBlocks: []))])
        }
        for member: UInt32 in [1, 7, 0x00FF_FFFF] {
            #expect(slot(rtp(ssrc: LiveMeetingPlan.cameraSSRC(slot: member))) == member)
            #expect(slot(rtp(ssrc: LiveMeetingPlan.cameraRTXSSRC(slot: member))) == member)
            #expect(slot(rtp(ssrc: LiveMeetingPlan.microphoneSSRC(slot: member))) == member)
            #expect(try slot(rtcp(ssrc: LiveMeetingPlan.receiverSSRC(slot: member))) == member)
            #expect(try slot(rtcp(ssrc: LiveMeetingPlan.consentSSRC(slot: member))) == member)
            #expect(try slot(rtcp(ssrc: LiveMeetingPlan.hostConsentSSRC(slot: member))) == nil, "the host's check to the member")
            #expect(try slot(rtcp(ssrc: LiveMeetingPlan.hostReceiverSSRC(slot: member))) == nil, "the host's feedback")
        }
        #expect(slot(rtp(ssrc: 0x4000_0001)) == nil, "the composite")
        #expect(slot(Array(rtp(ssrc: LiveMeetingPlan.cameraSSRC(slot: 1)).prefix(11))) == nil, "too short")
    }
}
