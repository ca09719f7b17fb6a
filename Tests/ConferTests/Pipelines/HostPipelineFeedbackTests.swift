import Testing
import Confer
import ConferMedia
import ConferMixer
import ConferRTP

@Suite struct HostPipelineFeedbackTests {
    /// Runs `meeting` to `end` in 10 ms steps, noting when the host encoded keyframes.
    private func run(_ meeting: TestMeeting, until end: Timestamp, keyframes: inout [Timestamp]) throws {
        var count = meeting.host.statistics.keyFramesEncoded
        while meeting.now < end {
            try meeting.run(until: min(meeting.now + .milliseconds(10), end))
            let now = meeting.host.statistics.keyFramesEncoded
            for _ in count ..< now { keyframes.append(meeting.now) }
            count = now
        }
    }

    /// PLIs from all three participants at once cost one keyframe; a second burst inside
    /// the interval costs one more, when the interval has passed — not three.
    @Test func keyframeRequestsAreThrottledAcrossParticipants() throws {
        let meeting = try TestMeeting(count: 3)
        var keyframes: [Timestamp] = []
        try run(meeting, until: .seconds(1), keyframes: &keyframes)
        #expect(keyframes.count == 1 && keyframes.first! < .milliseconds(50), "\(keyframes)")   // the first frame only
        let before = meeting.host.statistics
        let ssrc = meeting.host.configuration.videoSSRC
        func burst() throws {
            for endpoint in meeting.endpoints {
                try meeting.sendFeedback([.pictureLossIndication(RTCPPictureLossIndication(
                    senderSSRC: 0x3000_0000 + UInt32(endpoint.index), mediaSSRC: ssrc))], from: endpoint)
            }
        }
        try burst()
        try run(meeting, until: .seconds(1.2), keyframes: &keyframes)
        try burst()
        try run(meeting, until: .seconds(2), keyframes: &keyframes)

        #expect(keyframes.count == 3, "\(keyframes)")
        guard keyframes.count == 3 else { return }
        // The first burst is served by the next composite frame.
        #expect(keyframes[1] > .seconds(1) && keyframes[1] <= .seconds(1.04), "\(keyframes)")
        // The second waits out the 500 ms interval, then is served by the next frame.
        #expect(keyframes[2] - keyframes[1] >= .milliseconds(500), "\(keyframes)")
        #expect(keyframes[2] - keyframes[1] <= .milliseconds(540), "\(keyframes)")

        let after = meeting.host.statistics
        #expect(after.keyframeRequestsReceived - before.keyframeRequestsReceived == 6)
        #expect(after.keyframeRequestsAbsorbed - before.keyframeRequestsAbsorbed == 4)
        for endpoint in meeting.endpoints {
            #expect(after.participants[endpoint.id]?.plisReceived == 2)
            // Each participant decoded all three keyframes.
            #expect(endpoint.composite.keyframes == 3)
        }
    }

    /// A participant that has only now become reachable (a live host got its consent) gets a
    /// keyframe at the next composite frame, even inside the keyframe interval where its PLI
    /// would wait, since the keyframes before went nowhere for it; an unknown one costs none.
    @Test func aParticipantBecomingReachableGetsAKeyframeAtTheNextFrame() throws {
        let meeting = try TestMeeting(count: 2)
        var keyframes: [Timestamp] = []
        try run(meeting, until: .seconds(1), keyframes: &keyframes)
        #expect(keyframes.count == 1, "the first frame only: \(keyframes)")
        try meeting.host.participantBecameReachable(ParticipantID(99), at: meeting.now)
        try run(meeting, until: .seconds(1.2), keyframes: &keyframes)
        #expect(keyframes.count == 1, "nobody to serve: \(keyframes)")
        // A PLI makes a keyframe; a second one 100 ms later waits out the 500 ms interval.
        let ssrc = meeting.host.configuration.videoSSRC
        let pli = RTCPPacket.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: ssrc))
        try meeting.sendFeedback([pli], from: meeting.endpoints[0])
        try run(meeting, until: .seconds(1.3), keyframes: &keyframes)
        try meeting.sendFeedback([pli], from: meeting.endpoints[0])
        try run(meeting, until: .seconds(1.4), keyframes: &keyframes)
        #expect(keyframes.count == 2, "the second PLI waits: \(keyframes)")
        // Becoming reachable does not wait.
        try meeting.host.participantBecameReachable(meeting.endpoints[1].id, at: meeting.now)
        try run(meeting, until: .seconds(1.5), keyframes: &keyframes)
        #expect(keyframes.count == 3 && keyframes.last! <= .seconds(1.44), "\(keyframes)")
        #expect(meeting.endpoints[1].composite.keyframes == 3)
    }

    /// A participant added as not reachable (a live host waiting for its consent) is
    /// received and composed but sent nothing; once reachable it gets a downlink of its own,
    /// as at a join, and a keyframe as its first video, at the next frame, so it decodes from
    /// there without asking for anything.
    @Test func aParticipantNotYetReachableIsSentNothingThenStartsAtAKeyframe() throws {
        let meeting = try TestMeeting(count: 2)
        try meeting.run(until: .seconds(1))
        let late = try meeting.addEndpoint(reachable: false)
        try meeting.run(until: .seconds(2))
        #expect(late.downlink.carried == 0, "nothing sent into nowhere")
        let unreachable = try #require(meeting.host.statistics.participants[late.id])
        #expect(unreachable.videoPacketsSent == 0 && unreachable.audioPacketsSent == 0 && unreachable.rtcpPacketsSent == 0)
        #expect((meeting.host.statistics.participants[late.id]?.framesReceived ?? 0) > 20, "its camera is received meanwhile")
        var keyframes: [Timestamp] = []
        try run(meeting, until: .seconds(2.2), keyframes: &keyframes)
        #expect(keyframes.isEmpty, "no keyframe for it yet: \(keyframes)")
        try meeting.host.participantBecameReachable(late.id, at: meeting.now)
        try run(meeting, until: .seconds(3.2), keyframes: &keyframes)
        #expect(keyframes.count == 1 && keyframes[0] <= .seconds(2.24), "\(keyframes)")
        let video = try #require(late.receiver.statistics.video)
        #expect(video.keyFramesDecoded == 1 && video.framesDecoded >= 28, "\(video.framesDecoded) frames decoded")
        #expect(video.pliCount == 0 && video.firCount == 0 && video.framesDropped == 0, "its first video was the keyframe")
        #expect(late.downlink.carried > 0 && late.downlink.dropped == 0)
        let reachable = try #require(meeting.host.statistics.participants[late.id])
        // Carried also holds the receive chain's feedback to it; the stand-in's counts, a
        // second of them, would be about as many again.
        #expect(reachable.videoPacketsSent > 0 && reachable.videoPacketsSent + reachable.audioPacketsSent <= late.downlink.carried,
                "counted as sent only since it became reachable: \(reachable.videoPacketsSent) video, \(reachable.audioPacketsSent) audio, \(late.downlink.carried) carried")
    }

    /// A repeated FIR (same command sequence number) is one request; a FIR or PLI for
    /// another SSRC is none.
    @Test func firRepeatsAndForeignRequestsAreIgnored() throws {
        let meeting = try TestMeeting(count: 2)
        try meeting.run(until: .seconds(0.5))
        let before = meeting.host.statistics.keyframeRequestsReceived
        let endpoint = meeting.endpoints[0]
        let ssrc = meeting.host.configuration.videoSSRC
        let fir = RTCPPacket.fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: ssrc, sequenceNumber: 4)]))
        try meeting.sendFeedback([fir], from: endpoint)
        try meeting.sendFeedback([fir], from: endpoint)
        try meeting.sendFeedback([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1234))],
                                 from: endpoint)
        try meeting.run(until: .seconds(1))
        let statistics = meeting.host.statistics
        #expect(statistics.keyframeRequestsReceived - before == 1)
        #expect(statistics.participants[endpoint.id]?.firsReceived == 1)
        #expect(statistics.participants[endpoint.id]?.plisReceived == 0)
    }

    /// A participant joining a meeting under way asks for a keyframe, gets one, and decodes.
    @Test func aLateJoinerGetsAKeyframe() throws {
        let meeting = try TestMeeting(count: 2)
        var keyframes: [Timestamp] = []
        try run(meeting, until: .seconds(1), keyframes: &keyframes)
        let late = try meeting.addEndpoint()
        try run(meeting, until: .seconds(2), keyframes: &keyframes)
        #expect(keyframes.count == 2, "\(keyframes)")
        #expect(keyframes.last.map { $0 >= .seconds(1) && $0 <= .seconds(1.04) } == true, "\(keyframes)")
        #expect(late.composite.keyframes >= 1)
        #expect(late.composite.frames >= 25)
        // It shows in its own slot to everyone, itself included.
        let slot = meeting.host.slotRect(of: late.id)
        for viewer in meeting.endpoints {
            let color = try #require(viewer.color(in: slot))
            #expect(color.distance(to: TestPalette.color(at: late.index)) < 12, "\(color)")
        }
    }

    /// Loss on one participant's downlink: it NACKs, and the retransmissions go to it alone.
    @Test func retransmissionsGoOnlyToTheParticipantThatLostPackets() throws {
        let meeting = try TestMeeting(count: 3)
        let lossy = meeting.endpoints[1]
        var videoPackets = 0
        let clock = meeting.clock
        lossy.downlink.drop = { bytes in
            guard clock.now > .seconds(0.3), bytes.withUnsafeBytes({ RTPDatagramRoute(classifying: $0) }) == .media,
                  bytes.count > 12, bytes[1] & 0x7F == 96 else { return false }
            videoPackets += 1
            return videoPackets % 10 == 0
        }
        try meeting.run(until: .seconds(2))
        let statistics = meeting.host.statistics
        #expect(lossy.downlink.dropped >= 10)

        let lost = try #require(statistics.participants[lossy.id])
        #expect(lost.nacksReceived > 0)
        #expect(lost.retransmittedPacketsSent >= lossy.downlink.dropped - 2)
        #expect(lossy.receiver.statistics.retransmissionsReceived == lost.retransmittedPacketsSent)
        #expect(lossy.receiver.statistics.nacksSent > 0)
        #expect(lossy.composite.frames >= 55)

        for endpoint in meeting.endpoints where endpoint !== lossy {
            let other = try #require(statistics.participants[endpoint.id])
            #expect(other.nacksReceived == 0)
            #expect(other.retransmittedPacketsSent == 0 && other.retransmittedBytesSent == 0)
            #expect(endpoint.receiver.statistics.retransmissionsReceived == 0)
            // Same composite packets, same count, to everyone.
            #expect(other.videoPacketsSent == lost.videoPacketsSent)
        }
    }

    /// A NACK for far more than a participant's link carries is answered up to its target
    /// over half a second (``RetransmissionRateLimiter``); the rest is refused and counted.
    /// The other participant's budget is its own.
    @Test func retransmissionsToAParticipantAreHeldToItsTarget() throws {
        let meeting = try TestMeeting(count: 2)
        let asking = meeting.endpoints[0]
        var numbers: [UInt16] = []
        asking.downlink.drop = { bytes in
            if bytes.count > 12, bytes[1] & 0x7F == 96,
               bytes.withUnsafeBytes({ RTPDatagramRoute(classifying: $0) }) == .media {
                numbers.append(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
            }
            return false
        }
        try meeting.run(until: .seconds(3))
        let before = try #require(meeting.host.statistics.participants[asking.id])
        let target = try #require(before.bandwidth?.targetBitrate.bitsPerSecond)
        let ssrc = meeting.host.configuration.videoSSRC
        // Every packet of the last 0.9 s (still in the history): about twice the budget.
        let asked = Array(numbers.suffix(Int(Double(numbers.count) * 0.9 / 3)))
        let budget = Int(target) / 16
        let nack = RTCPGenericNACK(senderSSRC: 0x3000_0001, mediaSSRC: ssrc, lostSequenceNumbers: asked)
        try meeting.sendFeedback([.genericNACK(nack)], from: asking)
        let after = try #require(meeting.host.statistics.participants[asking.id])
        let resentBytes = after.retransmittedBytesSent - before.retransmittedBytesSent
        let resent = after.retransmittedPacketsSent - before.retransmittedPacketsSent
        #expect(asked.count > 0 && resent > 0 && resent < asked.count, "\(resent) of \(asked.count)")
        // SRTP adds its tag to what was budgeted: allow 10 bytes a packet.
        #expect(resentBytes <= budget + 10 * resent, "\(resentBytes) bytes for a \(budget)-byte budget")
        #expect(resentBytes >= budget / 2, "\(resentBytes) bytes for a \(budget)-byte budget")
        #expect(after.retransmissionsOverBudget - before.retransmissionsOverBudget == asked.count - resent)

        // Half a second on, the budget is back: the refused packets are resent on request.
        try meeting.run(until: meeting.now + .milliseconds(600))
        let refused = Array(asked.suffix(5))   // the newest: refused, as the budget went on the oldest
        let again = RTCPGenericNACK(senderSSRC: 0x3000_0001, mediaSSRC: ssrc, lostSequenceNumbers: refused)
        let beforeAgain = try #require(meeting.host.statistics.participants[asking.id]).retransmittedPacketsSent
        try meeting.sendFeedback([.genericNACK(again)], from: asking)
        let afterAgain = try #require(meeting.host.statistics.participants[asking.id]).retransmittedPacketsSent
        #expect(afterAgain - beforeAgain == refused.count)
    }

    /// A participant given fewer layers is told, in its sender reports, the packets it was
    /// sent, not every packet the host encoded (RFC 3550 §6.4.1's count is the receiver's
    /// to compare with what it got).
    @Test func senderReportsCountWhatTheParticipantWasSent() throws {
        var configuration = TestMeeting.smallHost()
        configuration.temporalLayers = 3
        configuration.simulcast = false
        // Three, so that the weak one is a minority the others are not held to.
        let meeting = try TestMeeting(count: 3, host: configuration)
        let weak = meeting.endpoints[0]
        let ssrc = meeting.host.configuration.videoSSRC
        var videoSeen = 0
        var reports: [(count: UInt32, seen: Int)] = []
        weak.downlink.drop = { bytes in
            switch bytes.withUnsafeBytes({ RTPDatagramRoute(classifying: $0) }) {
            case .media:
                if bytes.count > 12, bytes[1] & 0x7F == 96 { videoSeen += 1 }
            case .senderReport:
                for case .senderReport(let report) in (try? RTCPCompound.parse(bytes)) ?? [] where report.ssrc == ssrc {
                    reports.append((report.packetCount, videoSeen))
                }
            case .feedback:
                break
            }
            return false
        }
        // Its estimate held at 150 kbit/s: the base layer only.
        for step in 1 ... 29 {
            meeting.at(.milliseconds(100 * Int64(step))) { meeting in
                try meeting.sendFeedback([.receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate(
                    senderSSRC: 0x3000_0001, bitrate: 150_000, ssrcs: [ssrc]))], from: weak)
            }
        }
        try meeting.run(until: .seconds(3))
        let statistics = meeting.host.statistics
        let weakStatistics = try #require(statistics.participants[weak.id])
        let other = try #require(statistics.participants[meeting.endpoints[1].id])
        #expect(weakStatistics.framesLeftOut > 10)
        #expect(weakStatistics.videoPacketsSent + 10 < other.videoPacketsSent)
        let last = try #require(reports.last)
        #expect(reports.count >= 2)
        // Counted when handed to the pacer: a few may not have left yet.
        #expect(Int(last.count) >= last.seen && Int(last.count) <= last.seen + 20, "\(reports)")
    }
}
