import ConferJitter
import ConferMedia
import ConferRTP
import Testing

/// Restarts, wrap-around, duplicates and hostile input, with synthetic VP8 frames.
@Suite("Video jitter buffer robustness")
struct VideoRobustnessTests {
    @Test("a sender restart with a new SSRC resets the buffer and the new stream plays from its keyframe")
    func newSSRC() throws {
        var call = try VideoCallSimulation(VideoCallSimulation.Options())
        call.run(until: .seconds(2))
        let before = call.deliveries.count
        call.changeSSRC(to: 0x7777_8888, firstSequenceNumber: 1000, firstTimestamp: 123_456_789)
        call.run(until: .seconds(4))
        let stats = call.buffer.statistics
        #expect(stats.streamRestarts == 1)
        #expect(stats.pliCount == 0)
        let after = call.deliveries.filter { $0.at > .seconds(2.2) }
        #expect(after.count >= 50)
        #expect(call.deliveries.count - before >= 55)
        // The new stream is timed on its own: no discontinuity, no inflated delay.
        #expect(stats.currentTargetDelay < 0.05)
        #expect(stats.freezeCount == 0)
    }

    @Test("sequence numbers wrap around 65535 in the middle of reordered, lossy traffic")
    func wrapAround() throws {
        var options = VideoCallSimulation.Options()
        options.firstSequenceNumber = 65_530
        options.syntheticFrameBytes = 3000
        options.jitter = .milliseconds(20)
        options.lossRate = 0.02
        options.seed = 9
        options.stopCapturingAt = .seconds(3)
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(4))
        let stats = call.buffer.statistics
        #expect(call.packetsSent > 200)   // wrapped, and well past the wrap
        #expect(call.deliveries.map(\.pictureID) == Array(0 ..< 90))
        #expect(stats.packetsLost == 0 && stats.pliCount == 0 && stats.framesDropped == 0)
        #expect(stats.packetsReceived + stats.packetsRecovered >= call.packetsSent - 2)
    }

    @Test("every packet twice: duplicates are dropped and counted, each frame is delivered once, no counter goes negative")
    func duplicates() throws {
        var options = VideoCallSimulation.Options()
        options.duplicatesEveryPacket = true
        options.jitter = .milliseconds(20)
        options.lossRate = 0.03
        options.seed = 4
        options.stopCapturingAt = .seconds(5)
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(6))
        let stats = call.buffer.statistics
        let ids = call.deliveries.map(\.pictureID)
        #expect(ids == Array(0 ..< UInt16(ids.count)))
        #expect(ids.count >= 148)
        #expect(stats.framesReceived == stats.framesDelivered + stats.framesDropped + call.buffer.bufferedFrameCount)
        #expect(stats.packetsDuplicated > call.packetsSent / 2)
        // Originals count once each; duplicates and retransmissions never count as received.
        #expect(stats.packetsReceived <= call.packetsSent)
        #expect(stats.packetsLost >= 0 && stats.packetsLost <= 2)
        for counter in [stats.packetsReceived, stats.packetsLost, stats.packetsDuplicated, stats.retransmittedPacketsReceived,
                        stats.framesReceived, stats.framesDropped, stats.packetsRecovered, stats.packetsGivenUp] {
            #expect(counter >= 0)
        }
    }

    @Test("10 000 hostile packets: memory and counters stay bounded, nothing crashes, and the stream recovers")
    func hostile() throws {
        var options = VideoCallSimulation.Options()
        options.seed = 12
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(1))
        call.scheduleHostilePackets(10_000, over: .seconds(1) ..< .seconds(3), seed: 99)
        var largestBuffered = 0, largestFrames = 0, largestNack = 0, largestRetained = 0
        var time = Timestamp.seconds(1)
        while time < .seconds(3) {
            time += .milliseconds(10)
            call.run(until: time)
            largestBuffered = max(largestBuffered, call.buffer.bufferedPacketCount)
            largestFrames = max(largestFrames, call.buffer.bufferedFrameCount)
            largestNack = max(largestNack, call.buffer.pendingNackCount)
            largestRetained = max(largestRetained, call.buffer.retainedBytes)
        }
        let capacity = call.buffer.packetCapacity
        #expect(largestBuffered <= capacity)
        #expect(largestFrames <= capacity)
        #expect(largestNack <= 1000)
        // Payload storage per slot plus delivered frames, each within the payload limit.
        #expect(largestRetained <= 3 * capacity * call.buffer.configuration.maxPayloadSize)
        let during = call.buffer.statistics
        #expect(during.packetsMalformed + during.packetsOutOfRange + during.packetsLate + during.packetsDuplicated > 5000)

        call.run(until: .seconds(6))
        let stats = call.buffer.statistics
        // Back to normal: the last two seconds play every frame, in order.
        let recovered = call.deliveries.filter { $0.at >= .seconds(4) }.map(\.pictureID)
        #expect(recovered.count >= 58)
        #expect(zip(recovered, recovered.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(stats.currentTargetDelay <= 0.5)
        for counter in [stats.packetsReceived, stats.packetsLost, stats.framesReceived, stats.framesDropped,
                        stats.pliCount, stats.nackCount, stats.packetsGivenUp] {
            #expect(counter >= 0)
        }
    }
}
