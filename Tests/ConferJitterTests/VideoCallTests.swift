import ConferCodecs
import ConferJitter
import ConferMedia
import Testing

/// End-to-end calls: VP8 320×240 at 30 fps from a real encoder, over the test link, into
/// the jitter buffer, decoded for real. 320×240 at 250 kbit/s (one or two packets a frame)
/// keeps a 30 s call to a few seconds of test time.
@Suite("Video calls through the jitter buffer")
struct VideoCallTests {
    static func lossyCall(nack: Bool) throws -> VideoCallSimulation {
        var options = VideoCallSimulation.Options()
        options.realCodec = true
        options.rtt = .milliseconds(100)
        options.jitter = .milliseconds(30)
        options.lossRate = 0.05
        options.seed = 3
        options.stopCapturingAt = .seconds(30)
        options.configuration.nackEnabled = nack
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(31))
        return call
    }

    @Test("no loss, no jitter: every frame is delivered, decoded and rendered within 20 ms of arrival")
    func clean() throws {
        var options = VideoCallSimulation.Options()
        options.realCodec = true
        options.stopCapturingAt = .seconds(3)
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(4))
        let stats = call.buffer.statistics
        #expect(call.framesSent == 90)
        #expect(stats.framesDelivered == 90 && stats.framesDecoded == 90 && stats.framesRendered == 90)
        #expect(call.decodeErrors == 0 && call.framesWithoutPicture == 0)
        #expect(stats.jitterBufferEmittedCount == 90)
        let averageDelay = stats.jitterBufferDelay / Double(stats.jitterBufferEmittedCount)
        #expect(averageDelay <= 0.020)
        #expect(averageDelay >= 0.005)   // the render margin is there
        #expect(stats.packetsLost == 0 && stats.nackCount == 0 && stats.pliCount == 0 && stats.framesDropped == 0)
        #expect(stats.freezeCount == 0 && stats.keyFramesDecoded == 1)
        #expect(call.deliveries.map(\.pictureID) == Array(0 ..< 90))
    }

    @Test("5 % loss, 100 ms RTT, 30 ms jitter for 30 s: NACK keeps ≥ 99 % of frames and at most one freeze")
    func lossyWithNack() throws {
        let call = try Self.lossyCall(nack: true)
        let stats = call.buffer.statistics
        #expect(call.framesSent == 900)
        #expect(Double(stats.framesRendered) >= 0.99 * Double(call.framesSent))
        #expect(stats.freezeCount <= 1)
        #expect(call.decodeErrors == 0 && call.framesWithoutPicture == 0)
        #expect(stats.framesDecoded == stats.framesDelivered)
        // The loss was real and repaired by retransmission, not by keyframes.
        #expect(call.link.lost > 30)
        #expect(stats.packetsRecovered > 30 && stats.retransmittedPacketsReceived > 30)
        #expect(stats.nackCount > 30 && stats.pliCount <= 1)
        // Retransmissions are not new packets: the originals counted once each, the rest lost.
        #expect(stats.packetsReceived + stats.packetsLost <= call.packetsSent)
        #expect(stats.packetsLost <= 3)
        // The target delay grew by about an RTT once retransmissions were needed, within the cap.
        #expect(stats.currentTargetDelay > 0.130 && stats.currentTargetDelay <= 0.5)
    }

    @Test("the same call without NACK freezes visibly: more than one freeze and under 95 % rendered")
    func lossyWithoutNack() throws {
        let call = try Self.lossyCall(nack: false)
        let stats = call.buffer.statistics
        #expect(stats.freezeCount > 1)
        #expect(Double(stats.framesRendered) < 0.95 * Double(call.framesSent))
        #expect(stats.nackCount == 0 && stats.retransmittedPacketsReceived == 0)
        // Only keyframes repair the stream: one request per loss, throttled, each answered.
        #expect(stats.pliCount > 5 && call.keyframesSent > 5)
        // Undecodable frames are dropped, never handed to the decoder.
        #expect(call.decodeErrors == 0 && call.framesWithoutPicture == 0)
        #expect(stats.framesDropped > 0)
    }

    @Test("a burst of 50 lost packets is repaired by a keyframe: few requests, not one per frame")
    func burstLoss() throws {
        var options = VideoCallSimulation.Options()
        options.realCodec = true
        options.stopCapturingAt = .seconds(6)
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(2))
        let before = call.buffer.statistics
        // The link drops the next 50 packets, retransmissions included.
        call.link.burstRemaining = 50
        call.run(until: .seconds(7))
        let stats = call.buffer.statistics
        #expect(before.pliCount == 0 && before.framesDropped == 0)
        #expect(stats.pliCount >= 1 && stats.pliCount <= 3)
        #expect(call.keyframesSent >= 2 && call.keyframesSent <= 4)
        #expect(stats.packetsGivenUp > 0)
        #expect(call.decodeErrors == 0 && call.framesWithoutPicture == 0)
        // Frames flow again: the last second rendered every frame it captured.
        let lastSecond = call.deliveries.filter { $0.at >= .seconds(5) && $0.at < .seconds(6) }
        #expect(lastSecond.count >= 29)
        let ids = lastSecond.map(\.pictureID)
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(stats.freezeCount == 1)
    }
}
