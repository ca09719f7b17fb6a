import Testing
import Confer
import ConferMedia
import ConferMixer

@Suite struct HostPipelineCompositeTests {
    /// Three participants in a grid: each receives exactly one video and one audio stream
    /// from the host, decodes the composite at about the output rate, and sees every
    /// participant's colour in that participant's slot with its frame counter advancing.
    @Test func everyParticipantSeesEveryoneInTheirSlots() throws {
        let meeting = try TestMeeting(count: 3)
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
}

