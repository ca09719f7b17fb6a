import Testing
import Confer
import ConferMedia
import ConferMixer
import ConferRTP
import ConferSRTP

@Suite struct HostPipelineResilienceTests {
    /// Participant 1 stops sending, participant 2 sends garbage among its media, participant
    /// 3 is removed, and someone unknown sends datagrams: the others' pictures keep moving,
    /// the silent one turns to the placeholder, the mix goes on and the garbage is counted.
    @Test func aStoppedAGarbledAndARemovedParticipantHoldUpNobody() throws {
        let meeting = try TestMeeting(count: 4)
        let (steady, stopped, garbled, removed) = (meeting.endpoints[0], meeting.endpoints[1], meeting.endpoints[2],
                                                   meeting.endpoints[3])
        var random = SeededRandom(seed: 9)
        var garbageSent = 0
        for tick in 0 ..< 40 {
            meeting.at(.milliseconds(300 + Int64(tick) * 50)) { meeting in
                // Version 0 in the first byte: never valid RTP or RTCP, whatever follows.
                let count = 8 + Int(random.next() % 200)
                var bytes = (0 ..< count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                bytes[0] &= 0x3F
                if tick % 4 == 0 { bytes[1] = 200 + UInt8(tick % 8) }   // some look like RTCP
                bytes.withUnsafeBytes { _ = meeting.host.receive($0, from: garbled.id, at: meeting.now) }
                #expect(!bytes.withUnsafeBytes { meeting.host.receive($0, from: ParticipantID(99), at: meeting.now) }, "no such participant")
                garbageSent += 1
            }
        }
        meeting.at(.seconds(0.8)) { _ in
            stopped.sending = false
            stopped.uplink.drop = { _ in true }   // its feedback too: gone silent
        }
        meeting.at(.seconds(1.2)) { meeting in meeting.remove(removed) }
        var middle: [Int?] = []
        meeting.at(.seconds(1.6)) { meeting in
            middle = [steady, garbled].map { steady.counter(in: meeting.host.slotRect(of: $0.id)) }
        }
        try meeting.run(until: .seconds(2.5))

        let host = meeting.host
        let statistics = host.statistics
        #expect(host.participantIDs == [steady.id, stopped.id, garbled.id])
        #expect(statistics.participants[removed.id] == nil)
        #expect(statistics.sendFrameRate >= 28.5, "the canvas slowed to \(statistics.sendFrameRate) fps")
        #expect(statistics.videoFramesSkipped == 0)

        for viewer in [steady, garbled] {
            // The others' pictures kept moving after the layout changed.
            for (index, shown) in [steady, garbled].enumerated() where viewer === steady {
                let before = try #require(middle[index])
                let after = try #require(viewer.counter(in: host.slotRect(of: shown.id)))
                #expect(after - before >= 22, "\(shown.index)'s counter \(before) → \(after)")
            }
            // The stopped participant's slot shows the placeholder, not a frozen picture.
            let placeholder = YUVColor(y: 40, u: 128, v: 128)
            let color = try #require(viewer.color(in: host.slotRect(of: stopped.id)))
            #expect(color.distance(to: placeholder) < 8, "\(color)")
            // Audio goes on: the steady and garbled participants hear each other.
            let other = viewer === steady ? garbled : steady
            #expect(viewer.power(at: ToneSource.frequency(forIndex: other.index), lastSeconds: 0.5) > 0.01)
            #expect(viewer.power(at: ToneSource.frequency(forIndex: stopped.index), lastSeconds: 0.5) < 1e-5)
        }
        #expect(statistics.compositor.placeholderSlots > 0)
        let garbage = try #require(statistics.participants[garbled.id])
        #expect(garbage.receive.packetsDiscarded + garbage.feedbackMalformed == garbageSent)
        #expect(garbage.feedbackMalformed > 0 && garbage.receive.packetsDiscarded > 0)
        #expect(garbage.framesReceived >= 65)
        // Unknown senders, and what was still in flight from the removed one.
        #expect(statistics.datagramsFromUnknownParticipants >= garbageSent)
        // Its audio stopped: after the timeout it is mixed as silence, not as endless concealment.
        #expect(!host.isSpeaking(stopped.id))
        #expect(statistics.participants[stopped.id]?.hasOwnAudioEncoder == false)
    }

    /// SRTP on every link, a different key each way: everything still decodes and mixes.
    @Test func srtpWithSeparateUplinkAndDownlinkKeys() throws {
        let meeting = try TestMeeting(count: 3, srtp: true)
        try meeting.run(until: .seconds(1.5))
        let statistics = meeting.host.statistics
        for viewer in meeting.endpoints {
            #expect(viewer.composite.frames >= 40)
            #expect(viewer.receiver.statistics.packetsDiscarded == 0)
            #expect(viewer.sender.statistics.rtcpPacketsMalformed == 0)
            #expect(viewer.sender.statistics.rtcpPacketsReceived > 0)
            for shown in meeting.endpoints {
                let color = try #require(viewer.color(in: meeting.host.slotRect(of: shown.id)))
                #expect(color.distance(to: TestPalette.color(at: shown.index)) < 12)
            }
            let other = meeting.endpoints[(viewer.index + 1) % 3]
            #expect(viewer.power(at: ToneSource.frequency(forIndex: other.index), lastSeconds: 0.5) > 0.01)
            let participant = try #require(statistics.participants[viewer.id])
            #expect(participant.receive.packetsDiscarded == 0 && participant.feedbackMalformed == 0)
            #expect(participant.feedbackReceived > 0 && participant.roundTripTime != nil)
        }
    }

    /// A participant configured with the wrong downlink key cannot read the host, and its
    /// feedback does not authenticate: counted and dropped, the other participant unaffected.
    @Test func aParticipantWithTheWrongKeyIsDroppedNotObeyed() throws {
        let meeting = try TestMeeting(count: 2, srtp: true)
        try meeting.run(until: .seconds(0.5))
        let endpoint = meeting.endpoints[0]
        // Feedback protected with a key the host does not have.
        var random = SeededRandom(seed: 3)
        let key = SRTPMasterKey.random(profile: .aes128CmHmacSha1_80, using: &random)
        let session = try SRTPSession(key: key, direction: .outbound)
        var packet = try RTCPCompound.serialized([.pictureLossIndication(RTCPPictureLossIndication(
            senderSSRC: 1, mediaSSRC: meeting.host.configuration.videoSSRC))])
        try session.protectRTCP(&packet)
        let before = meeting.host.statistics
        packet.withUnsafeBytes { _ = meeting.host.receive($0, from: endpoint.id, at: meeting.now) }
        try meeting.run(until: .seconds(1))
        let after = meeting.host.statistics
        #expect(after.keyframeRequestsReceived == before.keyframeRequestsReceived)
        #expect(after.participants[endpoint.id]!.feedbackMalformed == 1)
        #expect(meeting.endpoints[1].composite.frames >= 25)
    }
}
