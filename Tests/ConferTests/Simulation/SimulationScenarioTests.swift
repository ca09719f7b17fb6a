import Testing
import Confer
import ConferMedia
import ConferNet
import ConferSimulation

/// The network scenarios, sender → network → receiver in virtual time, seeded.
///
/// Pictures are 320×240 (640×360 for the bandwidth cap, whose test pattern must be big
/// enough to need the bitrate) to keep each test within seconds in a debug build; the
/// loss scenario runs the full 30 s the issue names, the others as long as their point needs.
@Suite struct SimulationScenarioTests {
    @Test(arguments: [Codec.vp8, .vp9, .h264])
    func cleanNetworkRendersEveryFrameWithLittleBufferDelay(codec: Codec) throws {
        // A sender that does not pace: what is measured here is the buffer's own delay
        // (pacing's, on a keyframe, is the next test's).
        var options = SimulationOptions(codec: codec, forward: conditions(delayMs: 20), allowsFrameDropping: false)
        options.pacing = false
        let report = try Simulation.run(patternMedia(seconds: 3), options: options)
        let video = try #require(report.video)
        #expect(report.inputFrames == 90)
        #expect(report.outputFrames == 90)
        #expect(video.framesRendered == 90)
        #expect(report.quality.framesShown == 90)
        #expect(video.framesDropped == 0)
        #expect(video.freezeCount == 0)
        #expect(video.jitterBufferEmittedCount == 90)
        // jitterBufferDelay is summed over emitted frames (W3C); per frame it stays within 20 ms.
        #expect(video.jitterBufferDelay / Double(video.jitterBufferEmittedCount) <= 0.020)
        // 20 ms of network and the buffer's render margin, nothing more.
        #expect(report.endToEndDelay.p99 <= 45)
        #expect(report.endToEndDelay.min >= 20)
        #expect(report.quality.meanPSNR.y > 35)
    }

    /// Pacing (the default) spreads a keyframe's packets at 2.5 × the estimate: on a clean
    /// path it delays the keyframes, not the other frames, and every frame still renders.
    @Test(arguments: [Codec.vp8, .vp9, .h264])
    func pacingDelaysKeyframesOnlyOnACleanPath(codec: Codec) throws {
        let options = SimulationOptions(codec: codec, forward: conditions(delayMs: 20), allowsFrameDropping: false)
        #expect(options.pacing)
        var unpacedOptions = options
        unpacedOptions.pacing = false
        let paced = try Simulation.run(patternMedia(seconds: 3), options: options)
        let unpaced = try Simulation.run(patternMedia(seconds: 3), options: unpacedOptions)
        #expect(paced.video?.framesRendered == 90 && paced.video?.freezeCount == 0)
        #expect((paced.sender.video?.packetsPaced ?? 0) > 0 && unpaced.sender.video?.packetsPaced == 0)
        // Measured: p99 63–71 ms against 45 unpaced, the median within a few ms of it.
        #expect(paced.endToEndDelay.p99 <= 80)
        #expect(paced.endToEndDelay.p50 <= unpaced.endToEndDelay.p50 + 10)
    }

    @Test func randomLossIsRepairedByRetransmission() throws {
        // 5 % loss, 100 ms RTT, 30 ms jitter, VP8 at 30 fps for 30 s.
        let report = try Simulation.run(patternMedia(seconds: 30), options: SimulationOptions(
            codec: .vp8, forward: conditions(delayMs: 50, jitterMs: 30, lossPercent: 5)))
        let video = try #require(report.video)
        #expect(report.network.forwardStatistics.lossRate > 0.04)
        #expect(Double(video.framesRendered) >= 0.99 * 900)
        #expect(video.freezeCount <= 1)
        #expect(video.nackCount > 10)
        let sent = try #require(report.sender.video)
        #expect(sent.retransmittedPacketsSent > 10)
        #expect(report.receiver.retransmissionsReceived > 10)
        #expect(report.quality.meanPSNR.y > 35)
    }

    @Test func randomLossWithoutRetransmissionFreezes() throws {
        let report = try Simulation.run(patternMedia(seconds: 30), options: SimulationOptions(
            codec: .vp8, forward: conditions(delayMs: 50, jitterMs: 30, lossPercent: 5), nack: false))
        let video = try #require(report.video)
        #expect(video.nackCount == 0)
        #expect(report.sender.video?.retransmittedPacketsSent == 0)
        #expect(video.freezeCount >= 10)
        #expect(video.totalFreezesDuration > 3)
        #expect(Double(video.framesRendered) < 0.9 * 900)
        #expect(video.pliCount > 5)
        #expect((report.sender.video?.keyFramesEncoded ?? 0) > 5)
        #expect(report.quality.framesRepeated > 90)
    }

    @Test func targetDelayFollowsJitterAndComesBackDown() throws {
        // Phase 1 alone: 10 s of 30 ms (normal) jitter, no loss. The target delay should cover
        // the 95th percentile of the delay variation the path produced, and not much more.
        // Unpaced, so that the path's is the only variation (a paced keyframe adds its own).
        var jitteryOptions = SimulationOptions(codec: .vp8, forward: conditions(delayMs: 50, jitterMs: 30))
        jitteryOptions.pacing = false
        let jittery = try Simulation.run(patternMedia(seconds: 10), options: jitteryOptions)
        let variation = jittery.network.forwardDelay.p95 - jittery.network.forwardDelay.min
        let settled = jittery.timeline.filter { $0.time >= 3 }.compactMap(\.videoTargetDelay)
        #expect(variation > 60)
        #expect(try #require(settled.max()) * 1000 <= variation + 20)
        #expect(try #require(settled.min()) * 1000 >= 0.5 * variation)

        // The same, then 10 s without jitter: the target decays back toward the render margin.
        let calmer = try Simulation.run(patternMedia(seconds: 20), options: SimulationOptions(
            codec: .vp8, forward: conditions(delayMs: 50, jitterMs: 30),
            networkChanges: [.init(time: .seconds(10), forward: conditions(delayMs: 50), backward: conditions(delayMs: 50))]))
        let peak = try #require(calmer.timeline.filter { $0.time < 10 }.compactMap(\.videoTargetDelay).max())
        let final = try #require(calmer.timeline.last?.videoTargetDelay)
        #expect(final < 0.040)
        #expect(final < peak / 3)
        // Packets on the calm path overtake those still on the jittery one when it changes,
        // as on a real route change; a few frames may come too late then.
        #expect((calmer.video?.framesRendered ?? 0) >= 594)
    }

    @Test func opusFECConcealsLittleAtTenPercentLoss() throws {
        // Talk spurts: Opus (SILK) codes FEC only for active speech; a packet lost in a pause
        // is concealed as silence (W3C silentConcealedSamples), which no one hears. So the
        // measure is the audible share: concealedSamples − silentConcealedSamples.
        let options = SimulationOptions(codec: .vp8, forward: conditions(delayMs: 40, lossPercent: 10))
        let protected = try Simulation.run(patternMedia(seconds: 10, width: 160, height: 120, audio: true), options: options)
        let audio = try #require(protected.audio)
        #expect(audio.packetsLost > 30)
        #expect(audio.fecPacketsRecovered > 20)
        #expect(protected.audioAudibleConcealedFraction < 0.03)
        #expect(audio.totalSamplesReceived >= 9_900 * 48)

        var unprotectedOptions = options
        unprotectedOptions.fec = false
        let unprotected = try Simulation.run(patternMedia(seconds: 10, width: 160, height: 120, audio: true), options: unprotectedOptions)
        #expect(unprotected.audio?.fecPacketsRecovered == 0)
        #expect(unprotected.audioAudibleConcealedFraction > 2 * protected.audioAudibleConcealedFraction)
        #expect(unprotected.audioConcealedFraction > protected.audioConcealedFraction)
    }

    @Test func senderSettlesUnderABandwidthCap() throws {
        // 600 kbit/s wanted, 300 kbit/s available (IP/UDP overhead counted), 200 ms queue.
        let cap = 300_000
        let report = try Simulation.run(patternMedia(seconds: 20, width: 640, height: 360), options: SimulationOptions(
            codec: .vp8, forward: conditions(delayMs: 40, bandwidth: cap), videoBitrate: 600_000))
        let timeline = report.timeline
        // The estimate comes under the cap within 10 s …
        let under = try #require(timeline.first { $0.targetBitrate <= cap })
        #expect(under.time < 10)
        // … and from 10 s on, what the sender puts on the wire stays under it, in every second.
        for start in stride(from: 10.0, to: 20.0, by: 1.0) {
            let window = timeline.filter { $0.time > start && $0.time <= start + 1 }
            let rate = window.map(\.sendBitrate).reduce(0, +) / max(window.count, 1)
            #expect(rate <= cap, "sent \(rate) bit/s in [\(start), \(start + 1)) s")
        }
        // Delay does not grow: frames late in the run are no later than those early on.
        let early = try #require(timeline.filter { $0.time >= 2 && $0.time < 10 }.compactMap(\.endToEndDelay).max())
        let late = try #require(timeline.filter { $0.time >= 15 }.compactMap(\.endToEndDelay).max())
        #expect(late <= early + 0.020)
        #expect(late < 0.300)
        #expect(report.network.forwardStatistics.droppedQueue <= 20)
        #expect(Double(report.video?.framesRendered ?? 0) >= 0.98 * 600)
    }

    @Test(arguments: [true, false])
    func burstOfFiftyLostPacketsRecoversWithAKeyframe(nack: Bool) throws {
        // 200 packets arrive, the next 50 in a row are lost, then the path is clean.
        let trace = NetworkTrace(entries: Array(repeating: .delay(.milliseconds(40)), count: 200)
                                     + Array(repeating: .loss, count: 50), ending: .model)
        let report = try Simulation.run(patternMedia(seconds: 12), options: SimulationOptions(
            codec: .vp8, forward: conditions(delayMs: 40), forwardTrace: trace, nack: nack))
        let video = try #require(report.video)
        #expect(report.network.forwardStatistics.lostTrace == 50)
        #expect(video.pliCount >= 1)
        #expect((report.sender.video?.pliCount ?? 0) >= 1)
        #expect((report.sender.video?.keyFramesEncoded ?? 0) >= 2)
        #expect(video.keyFramesDecoded >= 2)
        #expect(video.freezeCount == 1)
        // The outage is about as long as the lost packets' media; rendering then runs on to the end.
        #expect(video.totalFreezesDuration < 2.5)
        let samples = report.timeline
        let outageEnd = try #require(samples.last { $0.endToEndDelay == nil && $0.time < 11 }).time
        let renderedAfter = try #require(samples.last(where: { $0.time <= 12 })).framesRendered
            - (try #require(samples.first { $0.time >= outageEnd + 1 })).framesRendered
        #expect(Double(renderedAfter) >= 0.95 * 30 * (12 - outageEnd - 1))
    }

    @Test func receiverFollowsASenderRestartWithNewSSRCs() throws {
        let report = try Simulation.run(patternMedia(seconds: 6), options: SimulationOptions(
            codec: .vp8, forward: conditions(delayMs: 30), senderRestart: .seconds(3)))
        let video = try #require(report.video)
        #expect(report.senderRestarts == 1)
        #expect(video.streamRestarts == 1)
        #expect(video.keyFramesDecoded >= 2)
        #expect(Double(video.framesRendered) >= 0.97 * 180)
        #expect(video.freezeCount <= 1)
        // The receiver's transport-cc feedback follows the new sender's numbering.
        #expect(report.sender.bandwidth.packetsAcknowledged > 50)
        #expect(report.sender.bandwidth.unknownFeedback < 50)
        // The new stream's frames are matched to their input frames, so quality holds.
        #expect(report.quality.framesShown >= 170)
        #expect(report.quality.meanPSNR.y > 35)
    }

    @Test func runsAreReproducible() throws {
        let options = SimulationOptions(codec: .vp8, forward: conditions(delayMs: 40, jitterMs: 10, lossPercent: 3, bandwidth: 400_000),
                                        seed: 9)
        let first = try Simulation.run(patternMedia(seconds: 4), options: options)
        let second = try Simulation.run(patternMedia(seconds: 4), options: options)
        #expect(first.timeline.map(\.targetBitrate) == second.timeline.map(\.targetBitrate))
        #expect(first.endToEndDelay == second.endToEndDelay)
        #expect(first.network.forwardStatistics == second.network.forwardStatistics)
        #expect(first.quality.meanPSNR == second.quality.meanPSNR)
    }
}
