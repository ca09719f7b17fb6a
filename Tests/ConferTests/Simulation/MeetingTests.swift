import Foundation
import Testing
@testable import ConferCLI
@testable import Confer
import ConferMedia
import ConferNet
import ConferRTP
@testable import ConferSimulation
@testable import ConferJobs

/// Whole meetings in virtual time: participants → host → participants.
@Suite struct MeetingTests {
    /// Three members on a clean path, turns of 2 s: everyone gets one composite stream at the
    /// output rate and one audio stream, the host follows the talker, and participant 1's mix
    /// holds the others' voices but not its own.
    @Test func threeMembersReceiveTheCompositeAndFollowTheTalker() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mixPath = directory + "/mix.wav"
        let compositePath = directory + "/composite.y4m"
        let options = MeetingOptions(participants: 3, duration: .seconds(6.5), canvasWidth: 640, canvasHeight: 360,
                                     cameraWidth: 320, cameraHeight: 180, cameraBitrate: 300_000, compositeBitrate: 800_000,
                                     talkTurn: .seconds(2), seed: 7)
        let report = try Meeting.run(options: options, compositeOutput: compositePath, mixOutput: mixPath)

        #expect(report.members.count == 3)
        #expect(report.hostSendFrameRate >= 28 && report.hostSendFrameRate <= 31)
        for member in report.members {
            #expect(member.videoStreamsReceived == 1 && member.audioStreamsReceived == 1, "member \(member.id)")
            #expect(member.receivedResolution == "640x360", "member \(member.id)")
            #expect(member.receiveFrameRate >= 27 && member.receiveFrameRate <= 31, "member \(member.id): \(member.receiveFrameRate)")
            #expect(member.framesSent >= 190, "member \(member.id) sent \(member.framesSent)")
            #expect(member.freezeCount == 0, "member \(member.id)")
            #expect(member.uplink.packetsLost == 0 && member.downlink.packetsLost == 0)
            #expect(member.audioPacketsSentPerSecond >= 45 && member.audioPacketsSentPerSecond <= 51)
            #expect(member.audioPacketsReceivedPerSecond >= 45 && member.audioPacketsReceivedPerSecond <= 51)
            // Each talks for 2 s; detection starts a little late (the path, the jitter buffer, the
            // level meter) and holds on for 700 ms after (cut for member 3, whose turn ends the meeting).
            let scheduled = try #require(member.scheduledTalkSeconds)
            #expect(abs(scheduled - 2) <= 0.15, "member \(member.id) scheduled \(scheduled)")
            #expect(member.speakingSeconds >= scheduled - 0.3 && member.speakingSeconds <= scheduled + 1,
                    "member \(member.id): \(member.speakingSeconds)")
        }
        // The active speaker follows the turns: 1, then 2, then 3.
        var sequence: [Int] = []
        for sample in report.timeline { if let s = sample.activeSpeaker, sequence.last != s { sequence.append(s) } }
        #expect(sequence == [1, 2, 3])
        // Participant 1's renderer drew its composite at the stream's rate, inside the budget.
        let composite = try #require(report.renderer.views.first { $0.view.rawValue == 0 })
        #expect(composite.framesDrawn >= Int(Double(report.members[0].framesRendered) * 0.95))
        #expect(report.renderer.utilization <= 1)

        // The written composite has every rendered frame, and the mix-minus holds:
        // participant 1 (300 Hz) is absent from its own mix, participant 2 (420 Hz) present.
        #expect(report.compositeFramesWritten == report.members[0].framesRendered)
        let mix = try AudioFileReader(path: mixPath)
        var chunk = AudioFrame(silenceOf: 480, channels: 1)
        var samples: [Int16] = []
        while try mix.read(into: &chunk, frameCount: 480), chunk.frameCount > 0 { samples += chunk.samples }
        func power(_ frequency: Double, from start: Double, to end: Double) -> Double {
            AudioAnalysis.goertzelPower(Array(samples[Int(start * 48_000) ..< Int(end * 48_000)]), frequency: frequency)
        }
        let ownInOwnTurn = power(ToneSource.frequency(forIndex: 0), from: 1.0, to: 2.0)
        let secondInItsTurn = power(ToneSource.frequency(forIndex: 1), from: 3.0, to: 4.0)
        let thirdInItsTurn = power(ToneSource.frequency(forIndex: 2), from: 5.0, to: 6.0)
        #expect(secondInItsTurn > 1000 * max(ownInOwnTurn, 1e-9), "own \(ownInOwnTurn), second \(secondInItsTurn)")
        #expect(thirdInItsTurn > 1000 * max(ownInOwnTurn, 1e-9), "own \(ownInOwnTurn), third \(thirdInItsTurn)")
    }

    /// 5 % loss both ways with jitter: NACK/RTX and keyframe requests keep the composite flowing.
    @Test func lossyPathsStillDeliverTheComposite() throws {
        let conditions = NetworkConditions(delay: .milliseconds(30), jitter: .normal(.milliseconds(10)), loss: 0.05)
        let options = MeetingOptions(participants: 2, duration: .seconds(4), uplink: conditions, downlink: conditions,
                                     canvasWidth: 640, canvasHeight: 360, cameraWidth: 320, cameraHeight: 180,
                                     cameraBitrate: 300_000, compositeBitrate: 800_000, seed: 3)
        let report = try Meeting.run(options: options)
        var nacks = 0
        for member in report.members {
            #expect(member.downlink.packetsLost > 0 && member.uplink.packetsLost > 0)
            #expect(member.framesRendered >= 100, "member \(member.id) rendered \(member.framesRendered)")
            #expect(member.freezeCount <= 1, "member \(member.id)")
            nacks += member.receive.nacksSent
        }
        #expect(nacks > 0)
    }

    /// 20 ms of jitter on every path (the README's `--jitter 20`): each downlink's estimate
    /// must not take trendless jitter for congestion, and while the estimates are still low
    /// at the start the composite is encoded smaller instead of dropping frames. Before,
    /// nine members received 9.1 fps here at 1280x720.
    @Test func jitterKeepsTheCompositeAtFullFrameRate() throws {
        let conditions = NetworkConditions(delay: .milliseconds(25), jitter: .normal(.milliseconds(20)))
        let options = MeetingOptions(participants: 4, duration: .seconds(5), uplink: conditions, downlink: conditions,
                                     cameraWidth: 320, cameraHeight: 180, cameraBitrate: 300_000, seed: 2)
        let report = try Meeting.run(options: options)
        #expect(report.hostSendFrameRate >= 28, "host sent \(report.hostSendFrameRate) fps")
        #expect(report.host.videoFramesDroppedByEncoder <= 15)
        // It started below the canvas at 300 kbit/s and climbed to it once the estimates had.
        #expect(report.host.resolutionChanges >= 1)
        #expect(report.host.encodedWidth == 1280 && report.host.encodedHeight == 720)
        #expect(report.host.videoTargetBitrate >= 1_200_000)
        for member in report.members {
            #expect(member.receiveFrameRate >= 27, "member \(member.id): \(member.receiveFrameRate) fps")
            #expect(member.receivedResolution == "1280x720", "member \(member.id)")
            #expect(member.freezeCount == 0, "member \(member.id)")
        }
    }

    /// One member behind a 250 kbit/s downlink, the composite encoded once (no second
    /// encode): its estimate holds the composite down for everyone, and the composite is
    /// encoded smaller rather than dropping frames; the timeline shows it second by second.
    @Test func aWeakMembersPathIsItsOwnAndTheCompositeShrinksToIt() throws {
        var options = MeetingOptions(participants: 3, duration: .seconds(5), canvasWidth: 640, canvasHeight: 360,
                                     cameraWidth: 320, cameraHeight: 180, cameraBitrate: 300_000, compositeBitrate: 1_000_000, seed: 4)
        var weak = options.downlink
        weak.bandwidth = 250_000
        options.memberPaths[2] = MeetingMemberPath(uplink: options.uplink, downlink: weak)
        options.simulcast = false
        let report = try Meeting.run(options: options)
        // Its own path: capped (≤ 250 kbit/s over the run and the drain), the others not.
        #expect(report.members[2].downlink.bytesDelivered <= 175_000)
        #expect(report.downlinkConditions.bandwidth == nil)
        #expect(report.host.videoTargetBitrate <= 250_000)
        #expect(report.host.encodedWidth < 640)
        #expect(report.hostSendFrameRate >= 25, "host sent \(report.hostSendFrameRate) fps")
        #expect(report.timeline.count == 5 && report.timeline.allSatisfy { $0.members.count == 3 })
        let last = try #require(report.timeline.last)
        #expect(last.compositeResolution == "\(report.host.encodedWidth)x\(report.host.encodedHeight)")
        #expect(last.members[0].resolution == last.compositeResolution)
        #expect(last.members[0].framesPerSecond >= 25)
    }

    /// Five members for 6 s, a 640×360 composite at up to 1 Mbit/s, member 5 behind a
    /// downlink of `downlink` bit/s, the rest of the options as `configure` sets them.
    static func weakMemberMeeting(downlink: Int, configure: (inout MeetingOptions) -> Void) throws -> MeetingReport {
        var options = MeetingOptions(participants: 5, duration: .seconds(6), canvasWidth: 640, canvasHeight: 360,
                                     compositeBitrate: 1_000_000, seed: 1)
        var weak = options.downlink
        weak.bandwidth = downlink
        options.memberPaths[4] = MeetingMemberPath(uplink: options.uplink, downlink: weak)
        configure(&options)
        return try Meeting.run(options: options)
    }

    /// The composite's mean target bitrate over the timeline's seconds after `time`.
    static func meanCompositeBitrate(_ report: MeetingReport, after time: Double) -> Double {
        let late = report.timeline.filter { $0.time > time }
        return Double(late.map(\.compositeBitrate).reduce(0, +)) / Double(max(late.count, 1))
    }

    /// The weak-member meeting (member 5 behind 350 kbit/s) in `codec`, without layers and in
    /// three, with what both codecs must show: the layered composite at least twice the
    /// single one and above the weak link, and the other four at full frame rate.
    static func layeredWeakMemberMeetings(_ codec: Codec, vp9Layers: VP9LayerSignalling = .flexibleMode)
        throws -> (single: MeetingReport, layered: MeetingReport) {
        func run(layers: Int) throws -> MeetingReport {
            try weakMemberMeeting(downlink: 350_000) {
                $0.codec = codec
                $0.temporalLayers = layers
                $0.vp9LayerSignalling = vp9Layers
                $0.simulcast = false
            }
        }
        func compositeBitrate(_ report: MeetingReport) -> Double { meanCompositeBitrate(report, after: 3) }
        let single = try run(layers: 1)
        let layered = try run(layers: 3)
        #expect(compositeBitrate(layered) >= 2 * compositeBitrate(single),
                "composite \(compositeBitrate(single)) → \(compositeBitrate(layered)) bit/s")
        #expect(compositeBitrate(layered) > 350_000)
        for member in layered.members.dropLast() {
            #expect(member.receiveFrameRate >= 27, "member \(member.id) received \(member.receiveFrameRate) fps")
        }
        return (single, layered)
    }

    /// With temporal layers, a member on a weak downlink gets the base layer (7.5 fps of
    /// the composite) and the others get the bitrate their own links carry, where without
    /// layers the composite follows the weak link for everyone.
    @Test func temporalLayersKeepAWeakMemberFromSettingEveryonesBitrate() throws {
        // Measured: 185 kbit/s without layers, 642 with.
        let (single, layered) = try Self.layeredWeakMemberMeetings(.vp8)
        let weakMember = try #require(layered.members.last)
        // Over the run: paced (the default), the first three seconds, before it may be given
        // fewer layers, cost it more than unpaced did (4.4 fps against 8.0 over 6 s).
        #expect(weakMember.receiveFrameRate >= 4 && weakMember.receiveFrameRate <= 16,
                "the weak member received \(weakMember.receiveFrameRate) fps")
        // Reduced after its third second and settled a second later: the base layer, 7.5 fps.
        let reduced = layered.timeline.filter { $0.time >= 5 }.map { $0.members[4].framesPerSecond }
        #expect(!reduced.isEmpty && reduced.allSatisfy { $0 >= 6 && $0 <= 10 }, "\(reduced)")
        // The others never froze; the weak member at most once (0 where this was first
        // measured, 1 with Debian's libvpx 1.12.0-1+deb12u5).
        #expect(layered.members.dropLast().allSatisfy { $0.freezeCount == 0 } && weakMember.freezeCount <= 1,
                "freezes \(layered.members.map(\.freezeCount))")
        // Within its cap over the run and the drain.
        #expect(weakMember.downlink.bytesDelivered <= 350_000 / 8 * 7)
        let last = try #require(layered.timeline.last)
        #expect(last.compositeLayers == 3 && last.members[4].layers == 1 && last.members[0].layers == 3)
        #expect((weakMember.host?.framesLeftOut ?? 0) > 0)
        #expect(single.timeline.last?.compositeLayers == 1)
    }

    /// VP9's temporal layers do what VP8's do (the test above, the same meeting), described
    /// either way: the weak member gets the base layer (flexible mode: picture ids with gaps,
    /// sequence numbers without; described as one: neither) and decodes every frame it
    /// gets, and the others get the bitrate their links carry.
    @Test(arguments: VP9LayerSignalling.allCases)
    func vp9TemporalLayersKeepAWeakMemberFromSettingEveryonesBitrate(described: VP9LayerSignalling) throws {
        // Measured (seed 1): 206 kbit/s without layers, 548 with.
        let (single, layered) = try Self.layeredWeakMemberMeetings(.vp9, vp9Layers: described)
        let weakMember = try #require(layered.members.last)
        #expect(weakMember.receiveFrameRate >= 5 && weakMember.receiveFrameRate <= 16,
                "the weak member received \(weakMember.receiveFrameRate) fps")
        // The others never froze; the weak member at most three times on its congested link
        // (2 measured with Debian's libvpx 1.12.0-1+deb12u5 on one machine, 3 with the same
        // libvpx on the AMD EPYC machine of 29 November; VP8 in the same meeting: 1).
        #expect(layered.members.dropLast().allSatisfy { $0.freezeCount == 0 } && weakMember.freezeCount <= 3,
                "freezes \(layered.members.map(\.freezeCount))")
        // Every frame delivered decoded: the P_DIFFs name only frames the receiver has.
        #expect(layered.members.allSatisfy { $0.receive.decoderFailures == 0 },
                "decoder failures \(layered.members.map(\.receive.decoderFailures))")
        #expect(weakMember.downlink.bytesDelivered <= 350_000 / 8 * 7)
        // Its link loses packets: its NACKs map back through the forwarder and the
        // retransmissions (picture ids as first sent) go to it; its keyframe requests reach the host.
        let host = try #require(weakMember.host)
        #expect(host.nacksReceived > 0 && host.retransmittedPacketsSent > 0
                && weakMember.receive.retransmissionsReceived > 0, "\(host.nacksReceived) NACKs, \(host.retransmittedPacketsSent) RTX")
        #expect(host.plisReceived + host.firsReceived == weakMember.receive.keyframeRequestsSent)
        let last = try #require(layered.timeline.last)
        #expect(last.compositeLayers == 3 && last.members[4].layers == 1 && last.members[0].layers == 3)
        #expect(host.framesLeftOut > 0)
        #expect(single.timeline.last?.compositeLayers == 1)
    }

    /// A member on a weak link gets the host's second, smaller encode at its own rate, so
    /// the others' composite follows their links: full frame rate for them, a smaller
    /// picture for it, within its cap and without freezes.
    @Test func aSecondEncodeKeepsAWeakMemberFromSettingEveryonesBitrate() throws {
        func run(simulcast: Bool) throws -> MeetingReport {
            try Self.weakMemberMeeting(downlink: 250_000) { $0.simulcast = simulcast }
        }
        func compositeBitrate(_ report: MeetingReport) -> Double { Self.meanCompositeBitrate(report, after: 2) }
        let single = try run(simulcast: false)
        let simulcast = try run(simulcast: true)
        #expect(compositeBitrate(simulcast) >= 3 * compositeBitrate(single),
                "composite \(compositeBitrate(single)) → \(compositeBitrate(simulcast)) bit/s")
        for member in simulcast.members.dropLast() {
            #expect(member.receiveFrameRate >= 27, "member \(member.id) received \(member.receiveFrameRate) fps")
        }
        let weakMember = try #require(simulcast.members.last)
        let host = try #require(weakMember.host)
        #expect(host.getsSmallEncode && host.encodeSwitches == 1)
        #expect(weakMember.receiveFrameRate >= 10, "the weak member received \(weakMember.receiveFrameRate) fps")
        // At most one freeze (0 measured on one machine, 1 with the same libraries on the AMD
        // EPYC machine of 29 November, where these runs differ for a cause below libvpx not found).
        #expect(weakMember.freezeCount <= 1)
        #expect(weakMember.downlink.bytesDelivered <= 250_000 / 8 * 7)
        let last = try #require(simulcast.timeline.last)
        #expect(last.members[4].smallEncode && !last.members[0].smallEncode)
        // It sees a smaller picture than the others, at its link's rate.
        let small = try #require(last.smallEncodeResolution)
        #expect(small != last.compositeResolution && last.members[4].resolution == small)
        #expect((last.smallEncodeBitrate ?? 0) <= 250_000 && last.compositeBitrate >= 700_000)
        #expect(single.timeline.allSatisfy { $0.smallEncodeResolution == nil })
    }

    /// With temporal layers and the small encode both on (what `--temporal-layers 3` does by
    /// default), a member whose link cannot carry the base layer gets the small encode, at
    /// its own rate and full frame rate, where layers alone leave it a few frames a second
    /// and hold everyone's composite down while they try.
    @Test func withLayersALinkTooWeakForTheBaseLayerGetsTheSmallEncode() throws {
        func run(smallEncode: Bool) throws -> MeetingReport {
            try Self.weakMemberMeeting(downlink: 250_000) {
                $0.temporalLayers = 3
                $0.simulcast = smallEncode
            }
        }
        let layersAlone = try run(smallEncode: false)
        let both = try run(smallEncode: true)
        let weak = try #require(both.members.last), weakAlone = try #require(layersAlone.members.last)
        // Measured (seed 1): 12.2 fps against 4.4, the others 28.9 against 27.2, the composite 1,000 kbit/s against 354.
        let host = try #require(weak.host)
        #expect(host.getsSmallEncode && host.encodeSwitches == 1)
        let last = try #require(both.timeline.last)
        #expect(last.members[4].smallEncode && (0 ..< 4).allSatisfy { !last.members[$0].smallEncode })
        #expect(weak.receiveFrameRate >= 2 * weakAlone.receiveFrameRate,
                "the weak member received \(weak.receiveFrameRate) fps, \(weakAlone.receiveFrameRate) with layers alone")
        #expect(weak.receiveFrameRate >= 10 && weak.freezeCount == 0)
        #expect(weak.downlink.bytesDelivered <= 250_000 / 8 * 7)
        for member in both.members.dropLast() {
            #expect(member.receiveFrameRate >= 27, "member \(member.id) received \(member.receiveFrameRate) fps")
        }
        #expect(Self.meanCompositeBitrate(both, after: 2) >= max(700_000, 2 * Self.meanCompositeBitrate(layersAlone, after: 2)))
    }

    /// A member whose link cannot carry even the base layer: no layers in the first two
    /// seconds (the estimates are guesses), then a reduction that backs up its pacer, its
    /// layers given back, and no new attempt for five seconds; its keyframe requests are
    /// passed on at most every two seconds while it is reduced.
    @Test func aMemberTheBaseLayerDoesNotFitGetsItsLayersBackAndWaits() throws {
        // 18 s: paced (the default), the second reduction's backlog takes 4 s to show, not 2
        // (and 6 s on the AMD EPYC machine of 29 November: layered in seconds 2–3 and 9–15,
        // where another machine had 2–3 and 9–12; with 14 s the second was never abandoned).
        var options = MeetingOptions(participants: 5, duration: .seconds(18), canvasWidth: 640, canvasHeight: 360,
                                     compositeBitrate: 1_000_000, seed: 1)
        var weak = options.downlink
        weak.bandwidth = 120_000
        options.memberPaths[4] = MeetingMemberPath(uplink: options.uplink, downlink: weak)
        options.temporalLayers = 3
        options.simulcast = false   // with the small encode, it would get that instead (below)
        let report = try Meeting.run(options: options)
        let layered = report.timeline.enumerated().filter { $0.element.compositeLayers > 1 }.map(\.offset)
        #expect(report.timeline.prefix(2).allSatisfy { $0.compositeLayers == 1 })
        let host = try #require(report.members.last?.host)
        #expect(host.layerReductionsAbandoned >= 2, "abandoned \(host.layerReductionsAbandoned) times")
        // Measured: layered in the third and fourth seconds, then from the tenth on.
        let attempts = zip(layered, layered.dropFirst()).filter { $1 - $0 > 1 }.map { $1 - $0 }
        #expect(!layered.isEmpty && attempts.allSatisfy { $0 >= 5 }, "layered seconds \(layered)")
        #expect(host.keyframeRequestsIgnored > 0)
        for member in report.members.dropLast() { #expect(member.receiveFrameRate >= 15) }
    }

    /// The host asks each participant for what its slot shows: on a 9-tile grid of a
    /// 1280×720 canvas (426×240 tiles, 274 kbit/s asked) a 640×360 camera is encoded at
    /// 480×270 and full rate; in the speaker layout the speaker keeps its full size and
    /// rate, and the thumbnails (under 1/20 of the canvas) shrink and, from the host's first
    /// request on, send every other frame. Uplinks follow the layout.
    @Test(arguments: [MixLayout.grid, .speaker])
    func participantsSendWhatTheirSlotShows(layout: MixLayout) throws {
        let options = MeetingOptions(participants: layout == .grid ? 9 : 4, duration: .seconds(2.2), layout: layout, seed: 3)
        let report = try Meeting.run(options: options)
        #expect(report.hostSendFrameRate >= 25)
        for member in report.members {
            let expected = layout == .grid ? "480x270" : member.id == 1 ? "640x360" : "320x180"
            #expect(member.sentResolution == expected, "member \(member.id) sent \(member.sentResolution)")
            if layout == .speaker && member.id != 1 {
                // 2.2 s: full rate until the first request, half after it.
                #expect(member.hostReceiveFrameRate >= 14 && member.hostReceiveFrameRate < 24,
                        "member \(member.id): the host got \(member.hostReceiveFrameRate) fps")
            } else {
                #expect(member.hostReceiveFrameRate >= 25, "member \(member.id): the host got \(member.hostReceiveFrameRate) fps")
            }
        }
        if layout == .grid {
            #expect(report.members.allSatisfy { $0.sendBitrate <= 300_000 })
        }
    }

    /// Recorded cameras loop when they end; a recorded voice replaces the synthetic turns.
    @Test func recordedInputsTakePart() throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let videos = [directory + "/a.y4m", directory + "/b.y4m"]
        for (index, path) in videos.enumerated() {
            _ = try Generator.run(output: path, pattern: .testcard, width: 160, height: 96, seconds: 1, index: index)
        }
        let voice = directory + "/a.wav"
        _ = try Generator.run(output: voice, seconds: 1, index: 5)
        let options = MeetingOptions(videoInputs: videos, audioInputs: [voice], duration: .seconds(1.5),
                                     canvasWidth: 320, canvasHeight: 180, seed: 5)
        let composite = directory + "/composite.ivf"
        let report = try Meeting.run(options: options, compositeOutput: composite)
        #expect(report.members.map(\.video) == videos)
        // The composite is recorded as it arrived: every frame the jitter buffer handed the
        // decoder, readable again at the canvas size.
        #expect(report.compositeFramesWritten == report.members[0].receive.video?.framesDecoded)
        let reader = try VideoFileReader(path: composite)
        #expect(reader.width == 320 && reader.height == 180)
        var decoded = 0
        while try reader.next() != nil { decoded += 1 }
        #expect(decoded == report.compositeFramesWritten)
        #expect(report.members[0].audio == voice && report.members[0].scheduledTalkSeconds == nil)
        #expect(report.members[1].scheduledTalkSeconds != nil)
        for member in report.members {
            // 1.5 s of a 1 s clip at 30 fps: the clip played on from its start.
            #expect(member.framesSent >= 44, "member \(member.id) sent \(member.framesSent)")
            #expect(member.sentResolution == "160x96" && member.hostReceivedResolution == "160x96")
            #expect(member.framesRendered >= 30)
        }
    }

    @Test func theSameSeedGivesTheSameMeeting() throws {
        let options = MeetingOptions(participants: 2, duration: .seconds(1), canvasWidth: 320, canvasHeight: 180,
                                     cameraWidth: 160, cameraHeight: 90, seed: 11)
        let a = try Meeting.run(options: options)
        let b = try Meeting.run(options: options)
        #expect(a.members.map(\.downlink.bytesSent) == b.members.map(\.downlink.bytesSent))
        #expect(a.members.map(\.framesRendered) == b.members.map(\.framesRendered))
    }

    @Test func badOptionsAreRefused() {
        #expect(throws: JobError.self) { try MeetingOptions(participants: 0).validate() }
        #expect(throws: JobError.self) { try MeetingOptions(participants: 65).validate() }
        #expect(throws: JobError.self) { try MeetingOptions(audioInputs: ["a", "b", "c", "d", "e"]).validate() }
        #expect(throws: JobError.self) { try MeetingOptions(canvasWidth: 641).validate() }
        #expect(throws: JobError.self) { try MeetingOptions(duration: .zero).validate() }
        #expect(throws: (any Error).self) { try Meeting.run(options: MeetingOptions(videoInputs: ["/nonexistent.y4m"])) }
    }
}

@Suite struct MeetingCommandTests {
    @Test func acceptsAGoodCommandLine() throws {
        let command = try MeetingCommand.parse(["--participants", "9", "--loss", "3", "--jitter", "20", "--layout", "speaker",
                                                "-o", "call.ivf", "--audio-out", "mix.wav", "--size", "640x360"])
        let options = try command.meetingOptions()
        #expect(options.memberCount == 9 && options.layout == .speaker)
        #expect(options.uplink.loss == 0.03 && options.downlink.loss == 0.03)
        #expect(options.canvasWidth == 640 && options.canvasHeight == 360)
        // One member's own path, over the meeting's; a repeat adds to it.
        let weak = try MeetingCommand.parse(["--participants", "9", "--jitter", "20", "--member", "9:down-bandwidth=300,up-loss=2",
                                             "--member", "9:delay=80"]).meetingOptions()
        #expect(weak.downlink(of: 8).bandwidth == 300_000 && weak.uplink(of: 8).bandwidth == nil)
        #expect(weak.uplink(of: 8).loss == 0.02 && weak.downlink(of: 8).loss == 0)
        #expect(weak.uplink(of: 8).delay == .milliseconds(80) && weak.downlink(of: 8).delay == .milliseconds(80))
        #expect(weak.downlink(of: 8).jitter == .normal(.milliseconds(20)))
        #expect(weak.downlink(of: 0) == weak.downlink && weak.memberPaths.count == 1)
        #expect(try MeetingCommand.parse(["--temporal-layers", "3"]).meetingOptions().temporalLayers == 3)
        #expect(try MeetingCommand.parse([]).meetingOptions().temporalLayers == 1)
        #expect(try MeetingCommand.parse([]).meetingOptions().simulcast)
        #expect(try !MeetingCommand.parse(["--no-simulcast"]).meetingOptions().simulcast)
        // The live host takes the same two choices.
        let member = ["--server", "http://127.0.0.1:7880", "--token", "t"]
        let live = try HostCommand.parse(member + ["--no-simulcast", "--temporal-layers", "3"]).mediaOptions()
        #expect(!live.simulcast && live.temporalLayers == 3)
        #expect(try HostCommand.parse(member).mediaOptions().simulcast)
        #expect(throws: (any Error).self) { try HostCommand.parse(member + ["--temporal-layers", "2", "--codec", "h264"]) }
        #expect(throws: (any Error).self, "the composite is video") { try HostCommand.parse(member + ["--codec", "opus"]) }
        // A layout file it cannot use is named with what is wrong, not as an unknown name.
        let layoutError = #expect(throws: (any Error).self) { try HostCommand.parse(member + ["--layout", "/nonexistent/room.json"]) }
        #expect(layoutError.map { HostCommand.message(for: $0) }?.contains("cannot read layout file /nonexistent/room.json") == true,
                "\(String(describing: layoutError))")
        #expect(try HostCommand.parse(member + ["--temporal-layers", "2", "--codec", "vp9"]).mediaOptions().temporalLayers == 2)
        #expect(try MeetingCommand.parse(["--temporal-layers", "3", "--codec", "vp9"]).meetingOptions().temporalLayers == 3)
        #expect(try MeetingCommand.parse(["--temporal-layers", "3", "--codec", "vp9"]).meetingOptions().vp9LayerSignalling == .flexibleMode)
        #expect(try MeetingCommand.parse(["--temporal-layers", "3", "--codec", "vp9", "--vp9-layers-as-one"])
            .meetingOptions().vp9LayerSignalling == .pictureIDsOnly)
        #expect(throws: (any Error).self) { try HostCommand.parse(member + ["--temporal-layers", "4"]) }
        let files = try MeetingCommand.parse(["--inputs", "a.y4m", "b.y4m", "--audio-inputs", "a.wav"])
        #expect(files.inputs == ["a.y4m", "b.y4m"] && files.audioInputs == ["a.wav"])
    }

    @Test(arguments: [
        ["--loss", "120"],
        ["--layout", "diagonal"],
        ["--participants", "3", "--inputs", "a.y4m", "b.y4m"],
        ["--bitrate", "5"],
        ["--codec", "av1"],
        ["--member", "9:down-bandwidth=300"],
        ["--member", "2:speed=3"],
        ["--member", "2:loss=101"],
        ["--member", "2"],
        ["--member", "0:delay=10"],
        ["--member", "2:delay=-5"],
        ["--temporal-layers", "4"],
        ["--temporal-layers", "0"],
        ["--temporal-layers", "3", "--codec", "h264"],
        ["--vp9-layers-as-one"],
        ["--temporal-layers", "3", "--vp9-layers-as-one"],
    ])
    func rejectsABadCommandLine(arguments: [String]) {
        #expect(throws: (any Error).self) { try MeetingCommand.parse(arguments) }
    }
}

@Suite struct MeetingSessionTests {
    /// The virtual-time meeting goes through the room's state machine: every participant asks,
    /// the host approves, keys and slots come from the room, a kick is the room's kick — and
    /// the same seed gives the same meeting, session and all.
    @Test func joinsApprovalsAndAKickAreTheRoomsAndRepeatForASeed() throws {
        var options = MeetingOptions(participants: 3, duration: .seconds(3), canvasWidth: 320, canvasHeight: 180, cameraWidth: 160,
                                     cameraHeight: 90, seed: 5)
        options.kicks = [(member: 1, at: .seconds(1))]
        let first = try Meeting.run(options: options)
        let second = try Meeting.run(options: options)
        #expect(first.session == second.session)
        #expect(first.session.filter { $0.event == "joinRequested" }.map(\.identity) == ["participant-1", "participant-2", "participant-3"])
        #expect(first.session.filter { $0.event == "joinRequestEnded" }.allSatisfy { $0.detail == "approved" })
        #expect(first.session.filter { $0.event == "memberJoined" }.map(\.detail) == ["slot 1", "slot 2", "slot 3"])
        let left = try #require(first.session.first { $0.event == "memberLeft" })
        #expect(left.identity == "participant-2" && left.detail == "kicked" && left.time == 1)
        // The kicked member stopped at one second; the others went on for three.
        #expect(first.members[1].framesSent <= 32 && first.members[1].framesSent >= 25)
        #expect(first.members[0].framesSent >= 85 && first.members[2].framesSent >= 85)
        #expect(first.host.participants.count == 2)
    }
}
