import Testing
import Confer
import ConferMedia
import ConferMixer
import ConferCodecs
import ConferRTP
import Foundation

@Suite struct HostPipelineCompositeTests {
    /// Three participants in a grid: each receives exactly one video and one audio stream
    /// from the host, decodes the composite at about the output rate, and sees every
    /// participant's colour in that participant's slot with its frame counter advancing.
    @Test(arguments: [Codec.vp8, .vp9, .h264])
    func everyParticipantSeesEveryoneInTheirSlots(codec: Codec) throws {
        var configuration = TestMeeting.smallHost()
        configuration.codec = codec
        let meeting = try TestMeeting(count: 3, host: configuration)
        var early: [[Int?]] = []
        meeting.at(.seconds(1.2)) { meeting in
            early = meeting.endpoints.map { viewer in meeting.endpoints.map { viewer.counter(in: meeting.host.slotRect(of: $0.id)) } }
        }
        try meeting.run(until: .seconds(2.2))
        let host = meeting.host
        let statistics = host.statistics

        #expect(statistics.videoFramesComposed >= 64 && statistics.videoFramesComposed <= 67)
        #expect(statistics.videoFramesSent == statistics.videoFramesEncoded)
        #expect(abs(statistics.sendFrameRate - 30) <= 1.5, "send frame rate \(statistics.sendFrameRate)")
        #expect(statistics.participants.count == 3)

        for (viewerIndex, viewer) in meeting.endpoints.enumerated() {
            // One composite SSRC, one audio SSRC, RTX (probe padding) only on the RTX SSRC.
            #expect(viewer.downlinkStreams[96] == [host.configuration.videoSSRC])
            #expect(viewer.downlinkStreams[111] == [host.configuration.audioSSRC])
            #expect(viewer.downlinkStreams.keys.allSatisfy { [96, 97, 111].contains($0) })
            #expect((viewer.downlinkStreams[97] ?? []).isSubset(of: [host.configuration.rtxSSRC]))
            // About the output rate for the 2 s after a short start-up.
            #expect(viewer.composite.frames >= 55, "participant \(viewerIndex) decoded \(viewer.composite.frames) composites")
            #expect(viewer.receiver.statistics.decoderFailures == 0)
            for (slotIndex, shown) in meeting.endpoints.enumerated() {
                let slot = try #require(host.slotRect(of: shown.id))
                let color = try #require(viewer.color(in: slot))
                #expect(color.distance(to: TestPalette.color(at: slotIndex)) < 12,
                        "participant \(viewerIndex) sees \(color) in \(slotIndex)'s slot")
                let before = try #require(early[viewerIndex][slotIndex])
                let after = try #require(viewer.counter(in: slot))
                // One second apart at 30 fps: the counter moved on by about 30 frames.
                #expect(after - before >= 25 && after - before <= 35, "counter \(before) → \(after)")
            }
        }
        for (id, participant) in statistics.participants {
            #expect(participant.framesReceived >= 55, "\(id)")
            #expect(participant.frameWidth == 160 && participant.frameHeight == 90)
            #expect(abs(participant.receiveFrameRate - 30) <= 2)
            #expect(participant.videoPacketsSent > 0 && participant.audioPacketsSent >= 100)
            #expect(participant.retransmittedPacketsSent == 0)
            #expect(participant.receive.packetsDiscarded == 0)
        }
    }

    /// A tile under 1/20 of the canvas is shown at half the frame rate, and the host asks
    /// it for half a full-rate thumbnail: a 5 × 5 grid's tiles on 1280×720 are, a 4 × 4
    /// grid's are not.
    @Test func smallTilesAreShownAtHalfTheFrameRate() {
        func rate(columns: Int, rows: Int) -> Double {
            HostPipeline.slotFrameRate(PixelRect(width: 1280 / columns, height: 720 / rows), canvasWidth: 1280, canvasHeight: 720,
                                       frameRate: 30)
        }
        #expect(rate(columns: 3, rows: 3) == 30)
        #expect(rate(columns: 4, rows: 4) == 30)
        #expect(rate(columns: 5, rows: 5) == 15)
        #expect(rate(columns: 7, rows: 7) == 15)
        let bitrate = VideoResolutionLadder.bitrate(forShowing: 1280 / 5, height: 720 / 5, frameRate: rate(columns: 5, rows: 5))
        #expect(bitrate < VideoResolutionLadder.fullFrameRateBitrate(frameRate: 30))
        #expect(VideoResolutionLadder.bitrate(forShowing: 320, height: 180, frameRate: 30)
                >= Int(Double(VideoResolutionLadder.fullFrameRateBitrate(frameRate: 30)) * VideoResolutionLadder.upswitchMargin))
    }

    /// The speaker layout shows the one participant talking large, once the mixer has
    /// confirmed it as the active speaker, and every participant sees that.
    @Test func theSpeakerLayoutFollowsTheActiveSpeaker() throws {
        let meeting = try TestMeeting(count: 3, host: TestMeeting.smallHost(layout: .activeSpeaker())) { index in
            ToneSource(index: index, amplitude: index == 2 ? 0.25 : 0, pattern: .continuous)
        }
        try meeting.run(until: .seconds(2))
        let host = meeting.host
        let talker = meeting.endpoints[2]
        #expect(host.activeSpeaker == talker.id)
        #expect(host.isSpeaking(talker.id) && !host.isSpeaking(meeting.endpoints[0].id))
        let large = try #require(host.slotRect(of: talker.id))
        for other in meeting.endpoints.dropLast() {
            let small = try #require(host.slotRect(of: other.id))
            #expect(small.width * small.height * 4 <= large.width * large.height)
        }
        for viewer in meeting.endpoints {
            // The talker's picture, letterboxed into the large slot.
            let picture = FitFill.rects(sourceWidth: 160, sourceHeight: 90, target: large, mode: .fit).destination
            let color = try #require(viewer.color(in: picture))
            #expect(color.distance(to: TestPalette.color(at: talker.index)) < 12, "\(color)")
        }
    }

    /// With one encode for everyone (no second encode), the weakest participant's estimate
    /// (less audio) sets the composite's bitrate, within the configured bounds.
    @Test func theWeakestLinkSetsTheCompositeBitrate() throws {
        var configuration = TestMeeting.smallHost()
        configuration.simulcast = false
        let meeting = try TestMeeting(count: 3, host: configuration)
        try meeting.run(until: .seconds(1))
        let before = meeting.host.statistics.videoTargetBitrate
        #expect(before >= 300_000)
        let weak = meeting.endpoints[1]
        let remb = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 232_000, ssrcs: [meeting.host.configuration.videoSSRC])
        try meeting.sendFeedback([.receiverEstimatedMaxBitrate(remb)], from: weak)
        #expect(meeting.host.statistics.videoTargetBitrate == 200_000)
        #expect(meeting.host.statistics.participants[weak.id]?.bandwidth?.targetBitrate.bitsPerSecond == 232_000)
        // Below the minimum, the minimum holds.
        let floor = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 50_000, ssrcs: [meeting.host.configuration.videoSSRC])
        try meeting.sendFeedback([.receiverEstimatedMaxBitrate(floor)], from: weak)
        #expect(meeting.host.statistics.videoTargetBitrate == meeting.host.configuration.minimumBitrate)
        // When the weak participant leaves, the others' estimates set it again.
        meeting.remove(weak)
        #expect(meeting.host.statistics.videoTargetBitrate > 200_000)
        try meeting.run(until: .seconds(1.5))
        #expect(meeting.endpoints[0].composite.frames >= 40)
    }

    /// With the second encode (the default), a weak participant past its first second is
    /// moved to the small encode at its own rate once that has been wanted for half a
    /// second (until then it sets everyone's rate); the others' composite then goes back to
    /// theirs, and the weak one goes on decoding the same picture from the new encode.
    @Test func aWeakParticipantGetsTheSmallEncodeAndTheOthersKeepTheirRate() throws {
        let meeting = try TestMeeting(count: 3)
        try meeting.run(until: .seconds(1.2))
        let before = meeting.host.statistics.videoTargetBitrate
        #expect(before >= 300_000)
        let weak = meeting.endpoints[1]
        let remb = RTCPReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 182_000, ssrcs: [meeting.host.configuration.videoSSRC])
        try meeting.sendFeedback([.receiverEstimatedMaxBitrate(remb)], from: weak)
        let unconfirmed = meeting.host.statistics
        #expect(unconfirmed.videoTargetBitrate == 150_000)      // its estimate less audio, for now
        #expect(unconfirmed.participants[weak.id]?.getsSmallEncode == false && unconfirmed.smallEncodeBitrate == 0)
        try meeting.run(until: .seconds(1.8))
        let statistics = meeting.host.statistics
        #expect(statistics.videoTargetBitrate >= before)
        #expect(statistics.smallEncodeBitrate == 150_000)
        let framesAtSwitch = weak.composite.frames
        try meeting.run(until: .seconds(2.6))
        let after = meeting.host.statistics
        #expect(after.participants[weak.id]?.getsSmallEncode == true)
        #expect(after.participants[weak.id]?.encodeSwitches == 1)
        #expect(after.participants[meeting.endpoints[0].id]?.getsSmallEncode == false)
        #expect(after.smallEncodeFramesEncoded >= 20 && after.smallEncodeKeyFrames >= 1)
        #expect(after.videoTargetBitrate >= before)
        // 0.8 s at 30 fps, less the wait for the small encode's first keyframe.
        #expect(weak.composite.frames - framesAtSwitch >= 20, "\(weak.composite.frames - framesAtSwitch) frames")
        #expect(weak.receiver.statistics.decoderFailures == 0)
        // The same canvas: each viewer sees every participant's colour in its slot.
        for viewer in [weak, meeting.endpoints[0]] {
            for shown in meeting.endpoints {
                let color = try #require(viewer.color(in: meeting.host.slotRect(of: shown.id)))
                #expect(color.distance(to: TestPalette.color(at: shown.index)) < 16, "\(color)")
            }
        }
    }

    /// A participant moved to the small encode by a dip is back on the first 2 s later once
    /// its link recovers; its next move holds it twice as long.
    @Test func theHoldOnAnEncodeDoublesWithEachMove() throws {
        let meeting = try TestMeeting(count: 3)
        let weak = meeting.endpoints[1]
        let ssrc = meeting.host.configuration.videoSSRC
        func estimate(_ bitrate: UInt64) throws {
            try meeting.sendFeedback([.receiverEstimatedMaxBitrate(RTCPReceiverEstimatedMaxBitrate(
                senderSSRC: 1, bitrate: bitrate, ssrcs: [ssrc]))], from: weak)
        }
        func small() -> Bool? { meeting.host.statistics.participants[weak.id]?.getsSmallEncode }
        try meeting.run(until: .seconds(1.2))
        try estimate(182_000)
        try meeting.run(until: .seconds(1.8))
        #expect(small() == true)
        try estimate(10_000_000)   // the link is back
        try meeting.run(until: .seconds(3.6))
        #expect(small() == true, "held for 2 s after its move at 1.7 s")
        try meeting.run(until: .seconds(4))
        #expect(small() == false)
        #expect(meeting.host.statistics.participants[weak.id]?.encodeSwitches == 2)
        // Another dip: the move back up at 3.7 s holds it 4 s, so it stays until 7.7 s.
        try estimate(182_000)
        try meeting.run(until: .seconds(7.5))
        #expect(small() == false)
        try estimate(182_000)
        try meeting.run(until: .seconds(8.4))
        #expect(small() == true)
        #expect(meeting.host.statistics.participants[weak.id]?.encodeSwitches == 3)
    }

    /// The statistics are data: JSON with one object per participant, keyed by its number.
    @Test func statisticsEncodeAsJSONKeyedByParticipant() throws {
        let meeting = try TestMeeting(count: 2)
        try meeting.run(until: .seconds(0.5))
        let data = try JSONEncoder().encode(meeting.host.statistics)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let participants = try #require(object["participants"] as? [String: Any])
        #expect(Set(participants.keys) == ["1", "2"])
        let decoded = try JSONDecoder().decode(HostPipelineStatistics.self, from: data)
        #expect(decoded.participants[ParticipantID(2)]?.framesReceived == meeting.host.statistics.participants[2]?.framesReceived)
        #expect(decoded.videoFramesSent == meeting.host.statistics.videoFramesSent)
    }

    /// Datagrams are routed by the first RTCP packet type, readable even under SRTCP.
    @Test func datagramsAreRoutedByTheirFirstPacketType() {
        func route(_ bytes: [UInt8]) -> RTPDatagramRoute { bytes.withUnsafeBytes { RTPDatagramRoute(classifying: $0) } }
        #expect(route([0x80, 96, 0, 1]) == .media)
        #expect(route([0x80, 200, 0, 6]) == .senderReport)
        #expect(route([0x80, 201, 0, 1]) == .feedback)
        #expect(route([0x81, 205, 0, 3]) == .feedback)
        #expect(route([0x81, 206, 0, 2]) == .feedback)
        #expect(route([0x80]) == .media)
        #expect(route([]) == .media)
        #expect(RTPDatagramRoute.senderReport.isForReceiveSide && !RTPDatagramRoute.feedback.isForReceiveSide)
    }

    /// Configurations the host cannot serve are refused with a reason; so is a participant twice.
    @Test func badConfigurationsAndDuplicateParticipantsAreRefused() throws {
        var configuration = TestMeeting.smallHost()
        configuration.codec = .opus
        var refused: HostPipelineError?
        refused = #expect(throws: HostPipelineError.self) { try HostPipeline(configuration: configuration) }
        #expect(refused?.kind == .invalidConfiguration)
        configuration = TestMeeting.smallHost()
        configuration.width = 321
        refused = #expect(throws: HostPipelineError.self) { try HostPipeline(configuration: configuration) }
        #expect(refused?.kind == .invalidConfiguration)
        configuration = TestMeeting.smallHost()
        configuration.audioPayloadType = configuration.videoPayloadType
        refused = #expect(throws: HostPipelineError.self) { try HostPipeline(configuration: configuration) }
        #expect(refused?.kind == .invalidConfiguration)
        configuration = TestMeeting.smallHost()
        configuration.audioFrameDuration = 25
        refused = #expect(throws: HostPipelineError.self) { try HostPipeline(configuration: configuration) }
        #expect(refused?.kind == .invalidConfiguration)

        let host = try HostPipeline(configuration: TestMeeting.smallHost())
        #expect(host.nextPollTime == nil)
        let participant = HostParticipantConfiguration(receive: ReceivePipelineConfiguration(video: .init(codec: .vp8), audio: .init()))
        try host.addParticipant(7, configuration: participant, at: .zero) { _ in }
        let duplicate = #expect(throws: HostPipelineError.self) { try host.addParticipant(7, configuration: participant, at: .zero) { _ in } }
        #expect(duplicate?.kind == .duplicateParticipant)
        #expect(host.participantIDs == [7])
        #expect(host.nextPollTime == .zero)
        host.removeParticipant(7, at: .zero)
        host.removeParticipant(8, at: .zero)
        #expect(host.participantIDs.isEmpty && host.nextPollTime == nil)
    }

    /// A host with an audience outside the meeting (``HostPipeline/runsWithoutParticipants``,
    /// as a forward to an SFU sets it) composes and mixes with no participant: before the
    /// first joins and after the last leaves, at the composite's 30 fps and the mix's 20 ms,
    /// starting with a keyframe. Without it the host rests, as it does once it is turned off.
    @Test func anAudienceKeepsTheHostRunningWithoutParticipants() throws {
        let host = try HostPipeline(configuration: TestMeeting.smallHost())
        var frames: [EncodedFrame] = []
        var mixes = 0
        host.compositeHandler = { frames.append($0) }
        host.mixHandler = { _ in mixes += 1 }
        func seconds(_ value: Double) -> Timestamp { Timestamp(microseconds: Int64((value * 1_000_000).rounded())) }
        func run(_ start: Double, _ end: Double) throws {
            for step in Int(start * 1000) ..< Int(end * 1000) {
                let now = seconds(Double(step) / 1000)
                if let due = host.nextPollTime, due <= now { try host.poll(at: now) }
            }
        }
        try run(0, 1)
        #expect(frames.isEmpty && mixes == 0, "no participant and no audience: the host rests")

        host.runsWithoutParticipants = true
        try run(1, 2)
        #expect((29 ... 31).contains(frames.count), "a second of 30 fps: \(frames.count)")
        #expect(frames.first?.isKeyframe == true)
        #expect(frames.count > 1 && (frames[1].timestamp - frames[0].timestamp).microseconds == 33_333)
        #expect((49 ... 51).contains(mixes), "a second of 20 ms mix frames: \(mixes)")

        // A participant comes and goes; the audience's picture goes on without a break.
        let participant = HostParticipantConfiguration(receive: ReceivePipelineConfiguration(video: .init(codec: .vp8), audio: .init()))
        try host.addParticipant(7, configuration: participant, at: seconds(2)) { _ in }
        try run(2, 2.5)
        host.removeParticipant(7, at: seconds(2.5))
        try run(2.5, 3.5)
        #expect((74 ... 76).contains(frames.count), "2.5 s of 30 fps: \(frames.count)")
        let gaps = zip(frames, frames.dropFirst()).map { $1.timestamp - $0.timestamp }
        #expect(gaps.allSatisfy { $0.microseconds <= 33_334 }, "no frame skipped")

        host.runsWithoutParticipants = false
        #expect(host.nextPollTime == nil)
        let (framesThen, mixesThen) = (frames.count, mixes)
        try run(3.5, 4)
        #expect(frames.count == framesThen && mixes == mixesThen, "the audience gone, the host rests again")
    }
}
