import ConferSRTP
import Testing

@Suite struct SRTPSessionTests {
    @Test(arguments: SRTPProfile.allCases)
    func roundTripIsByteExactAcrossSizesAndSequenceNumbers(profile: SRTPProfile) throws {
        let key = TestPackets.key(profile)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        var random = TestRandom(seed: 1)
        // Crosses the 16-bit wrap so the rollover counter is exercised too.
        var sequence: UInt16 = 65_530
        for size in [0, 1, 15, 16, 17, 160, 1000, 1188] {
            for _ in 0 ..< 2 {
                let plain = TestPackets.rtp(sequence: sequence, timestamp: UInt32(sequence) * 960, payload: random.bytes(size))
                var packet = plain
                try sender.protectRTP(&packet)
                #expect(packet.count == plain.count + profile.rtpOverhead)
                #expect(packet[..<12] == plain[..<12], "SRTP leaves the RTP header in the clear")
                if size >= 16 { #expect(packet[12 ..< 12 + size] != plain[12...], "the payload is encrypted") }
                try receiver.unprotectRTP(&packet)
                #expect(packet == plain)
                sequence &+= 1
            }
        }
        #expect(sender.stats.packetsProtected == 16)
        #expect(receiver.stats.packetsUnprotected == 16)
        #expect(receiver.stats.authenticationFailures + receiver.stats.replays + receiver.stats.otherFailures == 0)
    }

    @Test(arguments: zip(SRTPProfile.allCases, [10, 4, 16]))
    func tagOverheadIsExactPerProfile(profile: SRTPProfile, tag: Int) throws {
        #expect(profile.rtpOverhead == tag)
        let sender = try SRTPSession(key: TestPackets.key(profile), direction: .outbound)
        let plain = TestPackets.rtp(sequence: 1, payload: [UInt8](repeating: 0x42, count: 100))
        var storage = [UInt8](repeating: 0, count: 256)
        storage.replaceSubrange(0 ..< plain.count, with: plain)
        let length = try storage.withUnsafeMutableBytes { try sender.protectRTP($0, length: plain.count) }
        #expect(length == plain.count + tag)
    }

    @Test(arguments: SRTPProfile.allCases)
    func protectAndUnprotectWriteNothingPastTheTrailer(profile: SRTPProfile) throws {
        let key = TestPackets.key(profile)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        let guardByte: UInt8 = 0xA5
        for (index, size) in [0, 3, 100, 1188].enumerated() {
            let plain = TestPackets.rtp(sequence: UInt16(index), payload: [UInt8](repeating: 0x11, count: size))
            let room = plain.count + profile.rtpOverhead
            var storage = plain + [UInt8](repeating: guardByte, count: profile.rtpOverhead + 64)
            let protected = try storage.withUnsafeMutableBytes { try sender.protectRTP($0, length: plain.count) }
            #expect(protected == room)
            #expect(storage[room...].allSatisfy { $0 == guardByte }, "protect wrote past the tag")
            let unprotected = try storage.withUnsafeMutableBytes { try receiver.unprotectRTP($0, length: protected) }
            #expect(unprotected == plain.count)
            #expect(Array(storage[..<plain.count]) == plain)
            #expect(storage[room...].allSatisfy { $0 == guardByte }, "unprotect wrote past the packet")
        }
        let report = TestPackets.receiverReport(ssrc: 99)
        let room = report.count + profile.rtcpOverhead
        var storage = report + [UInt8](repeating: guardByte, count: profile.rtcpOverhead + 64)
        let protected = try storage.withUnsafeMutableBytes { try sender.protectRTCP($0, length: report.count) }
        #expect(protected == room)
        #expect(storage[room...].allSatisfy { $0 == guardByte }, "protect_rtcp wrote past the trailer")
        let unprotected = try storage.withUnsafeMutableBytes { try receiver.unprotectRTCP($0, length: protected) }
        #expect(unprotected == report.count)
        #expect(storage[room...].allSatisfy { $0 == guardByte }, "unprotect_rtcp wrote past the packet")
    }

    @Test(arguments: SRTPProfile.allCases)
    func aBufferWithoutRoomForTheTagIsATypedErrorAndLeavesThePacketAlone(profile: SRTPProfile) throws {
        let sender = try SRTPSession(key: TestPackets.key(profile), direction: .outbound)
        let plain = TestPackets.rtp(sequence: 9, payload: [1, 2, 3, 4])
        var storage = plain + [UInt8](repeating: 0, count: profile.rtpOverhead - 1)
        let error = #expect(throws: SRTPError.self) {
            _ = try storage.withUnsafeMutableBytes { try sender.protectRTP($0, length: plain.count) }
        }
        #expect(error?.kind == .bufferTooSmall)
        #expect(error?.code == nil)
        #expect(Array(storage[..<plain.count]) == plain)
        #expect(sender.stats.otherFailures == 1)
        #expect(sender.stats.packetsProtected == 0)
    }

    @Test func lengthsOutsideTheBufferOrBelowAHeaderAreRejected() throws {
        let sender = try SRTPSession(key: TestPackets.key(.aes128CmHmacSha1_80), direction: .outbound)
        var storage = [UInt8](repeating: 0x80, count: 64)
        for length in [-1, 0, 11, 65] {
            let error = #expect(throws: SRTPError.self) {
                _ = try storage.withUnsafeMutableBytes { try sender.protectRTP($0, length: length) }
            }
            #expect(error?.kind == .badParameter, "length \(length)")
        }
        // One byte in: libsrtp reads header words, so a misaligned packet is refused.
        let error = #expect(throws: SRTPError.self) {
            _ = try storage.withUnsafeMutableBytes { try sender.protectRTP(UnsafeMutableRawBufferPointer(rebasing: $0[1...]), length: 20) }
        }
        #expect(error?.name == "alignment")
        #expect(sender.stats.otherFailures == 5)
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperingWithAnyByteFailsAuthenticationAndTheSessionGoesOn(profile: SRTPProfile) throws {
        let key = TestPackets.key(profile)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        var random = TestRandom(seed: 3)
        let plain = TestPackets.rtp(sequence: 500, timestamp: 48_000, payload: random.bytes(40))
        var good = plain
        try sender.protectRTP(&good)
        for position in good.indices {
            var forged = good
            forged[position] ^= 0x01
            let error = #expect(throws: SRTPError.self, "byte \(position)") { try receiver.unprotectRTP(&forged) }
            #expect(error?.kind == .authenticationFailed, "byte \(position)")
            #expect(error?.name == "srtp_err_status_auth_fail")
            #expect(error?.code == 7)
        }
        #expect(receiver.stats.authenticationFailures == UInt64(good.count))
        try receiver.unprotectRTP(&good)
        #expect(good == plain)
        #expect(receiver.stats.packetsUnprotected == 1)
        #expect(receiver.stats.otherFailures == 0)
    }

    @Test(arguments: SRTPProfile.allCases)
    func replayedAndTooOldPacketsAreDroppedAndCounted(profile: SRTPProfile) throws {
        let key = TestPackets.key(profile)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound, replayWindow: 128)
        var old = TestPackets.rtp(sequence: 10, payload: [1, 2, 3])
        try sender.protectRTP(&old)
        var recent = TestPackets.rtp(sequence: 10 + 500, payload: [4, 5, 6])
        try sender.protectRTP(&recent)

        var first = recent
        try receiver.unprotectRTP(&first)
        var again = recent
        let replay = #expect(throws: SRTPError.self) { try receiver.unprotectRTP(&again) }
        #expect(replay?.kind == .replayed)
        #expect(replay?.name == "srtp_err_status_replay_fail")

        var late = old
        let tooOld = #expect(throws: SRTPError.self) { try receiver.unprotectRTP(&late) }
        #expect(tooOld?.kind == .replayed)
        #expect(tooOld?.name == "srtp_err_status_replay_old")
        #expect(receiver.stats.replays == 2)
        #expect(receiver.stats.packetsUnprotected == 1)
    }

    @Test func reusingASequenceNumberOnTheSendingSideIsRefused() throws {
        let sender = try SRTPSession(key: TestPackets.key(.aes128CmHmacSha1_80), direction: .outbound)
        var first = TestPackets.rtp(sequence: 77, payload: [1])
        try sender.protectRTP(&first)
        var second = TestPackets.rtp(sequence: 77, payload: [2])
        let error = #expect(throws: SRTPError.self) { try sender.protectRTP(&second) }
        #expect(error?.kind == .replayed)
        #expect(second.count == 13, "the count is restored on failure")
    }

    @Test(arguments: SRTPProfile.allCases)
    func aWrongKeyFailsAuthentication(profile: SRTPProfile) throws {
        let sender = try SRTPSession(key: TestPackets.key(profile, seed: 1), direction: .outbound)
        let receiver = try SRTPSession(key: TestPackets.key(profile, seed: 2), direction: .inbound)
        var packet = TestPackets.rtp(sequence: 1, payload: [UInt8](repeating: 9, count: 50))
        try sender.protectRTP(&packet)
        let error = #expect(throws: SRTPError.self) { try receiver.unprotectRTP(&packet) }
        #expect(error?.kind == .authenticationFailed)
        #expect(receiver.stats.authenticationFailures == 1)
    }

    @Test func aSessionRefusesTheOtherDirection() throws {
        let key = TestPackets.key(.aeadAes128Gcm)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        var packet = TestPackets.rtp(sequence: 1, payload: [1, 2, 3])
        let refused = #expect(throws: SRTPError.self) { try receiver.protectRTP(&packet) }
        #expect(refused?.kind == .wrongDirection)
        try sender.protectRTP(&packet)
        let error = #expect(throws: SRTPError.self) { try sender.unprotectRTP(&packet) }
        #expect(error?.kind == .wrongDirection)
        #expect(sender.stats.otherFailures == 1)
        #expect(receiver.stats.otherFailures == 1)
    }

    @Test func replayWindowsOutsideLibsrtpLimitsAreRejected() {
        for window in [0, 63, 32_768] {
            let error = #expect(throws: SRTPError.self) {
                _ = try SRTPSession(key: TestPackets.key(.aes128CmHmacSha1_80), direction: .inbound, replayWindow: window)
            }
            #expect(error?.kind == .badParameter, "window \(window)")
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func garbageNeverUnprotectsOrCrashes(profile: SRTPProfile) throws {
        let receiver = try SRTPSession(key: TestPackets.key(profile), direction: .inbound)
        var random = TestRandom(seed: 11)
        for round in 0 ..< 600 {
            var packet = random.bytes(Int(random.next() % 80))
            // Half the time, a plausible version so libsrtp gets past its own header checks.
            if round % 2 == 0, !packet.isEmpty { packet[0] = 0x80 | (packet[0] & 0x3F) }
            if round % 3 == 0 {
                #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(&packet) }
            } else {
                #expect(throws: SRTPError.self) { try receiver.unprotectRTP(&packet) }
            }
        }
        let stats = receiver.stats
        #expect(stats.authenticationFailures + stats.replays + stats.otherFailures == 600)
        #expect(stats.authenticationFailures > 0, "some garbage must reach the tag check")
        #expect(stats.packetsUnprotected == 0)
    }

    @Test func theArrayFormReusesReservedStorage() throws {
        let key = TestPackets.key(.aes128CmHmacSha1_80)
        let sender = try SRTPSession(key: key, direction: .outbound)
        let receiver = try SRTPSession(key: key, direction: .inbound)
        var packet: [UInt8] = []
        packet.reserveCapacity(1500)
        var base: UInt?
        for sequence in UInt16(0) ..< 20 {
            packet.removeAll(keepingCapacity: true)
            packet += TestPackets.rtp(sequence: sequence, payload: [UInt8](repeating: UInt8(sequence), count: 1200))
            try sender.protectRTP(&packet)
            #expect(packet.count == 1222)
            try receiver.unprotectRTP(&packet)
            #expect(packet.count == 1212)
            let address = packet.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
            if base == nil { base = address }
            #expect(address == base, "no reallocation at packet \(sequence)")
        }
    }
}
