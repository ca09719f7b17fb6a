import ConferSRTP
import Testing

@Suite struct SRTCPTests {
    @Test(arguments: SRTPProfile.allCases)
    func receiverReportsRoundTripWithTheExpectedTrailer(profile: SRTPProfile) throws {
        let key = TestPackets.key(profile)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        #expect(profile.rtcpOverhead == (profile == .aeadAes128Gcm ? 20 : 14))
        var firstIndex: UInt32?
        for index in UInt32(0) ..< 5 {
            let plain = index % 2 == 0
                ? TestPackets.receiverReport(ssrc: 0xCAFE)
                : TestPackets.receiverReport(ssrc: 0xCAFE, about: 0x1234_5678, highestSequence: 1000 + index)
            var packet = plain
            try sender.protectRTCP(&packet)
            #expect(packet.count == plain.count + profile.rtcpOverhead)
            #expect(packet[..<8] == plain[..<8], "the first header and SSRC stay in the clear")
            // The E flag (encrypted) is set and the SRTCP index goes up by one per packet.
            // (AEAD puts the tag before the index, RFC 7714 §17; AES-CM after, RFC 3711 §3.4.)
            let trailer = plain.count + (profile == .aeadAes128Gcm ? 16 : 0)
            let eAndIndex = packet[trailer ..< trailer + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(eAndIndex & 0x8000_0000 != 0)
            if firstIndex == nil { firstIndex = eAndIndex & 0x7FFF_FFFF }
            #expect(eAndIndex & 0x7FFF_FFFF == (firstIndex ?? 0) + index)
            try receiver.unprotectRTCP(&packet)
            #expect(packet == plain)
        }
        #expect(sender.stats.packetsProtected == 5)
        #expect(receiver.stats.packetsUnprotected == 5)
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedReportsFailAuthenticationAndReplaysAreDropped(profile: SRTPProfile) throws {
        let key = TestPackets.key(profile)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        let plain = TestPackets.receiverReport(ssrc: 0xCAFE, about: 7, highestSequence: 42)
        var good = plain
        try sender.protectRTCP(&good)
        for position in good.indices {
            var forged = good
            forged[position] ^= 0x01
            let error = #expect(throws: SRTPError.self, "byte \(position)") { try receiver.unprotectRTCP(&forged) }
            #expect(error?.kind == .authenticationFailed, "byte \(position)")
        }
        #expect(receiver.stats.authenticationFailures == UInt64(good.count))
        var first = good
        try receiver.unprotectRTCP(&first)
        #expect(first == plain)
        var again = good
        let replay = #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(&again) }
        #expect(replay?.kind == .replayed)
        #expect(receiver.stats.replays == 1)
        #expect(receiver.stats.packetsUnprotected == 1)
    }
}
