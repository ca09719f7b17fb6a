import ConferJitter
import ConferMedia
import Foundation
import Testing

@Suite("Video receive statistics")
struct VideoStatisticsTests {
    @Test("statistics encode as JSON under their W3C names and decode back unchanged")
    func codable() throws {
        var options = VideoCallSimulation.Options()
        options.lossRate = 0.05
        options.jitter = .milliseconds(10)
        options.seed = 21
        var call = try VideoCallSimulation(options)
        call.run(until: .seconds(3))
        let stats = call.buffer.statistics
        let json = try JSONEncoder().encode(stats)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        for name in ["packetsReceived", "packetsLost", "retransmittedPacketsReceived", "jitter", "framesReceived",
                     "framesDecoded", "framesDropped", "keyFramesDecoded", "freezeCount", "totalFreezesDuration",
                     "totalPausesDuration", "jitterBufferDelay", "jitterBufferTargetDelay", "jitterBufferEmittedCount",
                     "nackCount", "pliCount", "firCount"] {
            #expect(object[name] != nil, "missing \(name)")
        }
        #expect(try JSONDecoder().decode(VideoReceiveStatistics.self, from: json) == stats)
        #expect(stats.nackCount > 0 && stats.packetsRecovered > 0 && stats.jitter > 0)
    }

    @Test("counters never go negative under loss, reordering, duplicates and retransmissions, sampled all along")
    func neverNegative() throws {
        var options = VideoCallSimulation.Options()
        options.lossRate = 0.1
        options.jitter = .milliseconds(40)
        options.duplicatesEveryPacket = true
        options.seed = 8
        var call = try VideoCallSimulation(options)
        var time = Timestamp.zero
        while time < .seconds(5) {
            time += .milliseconds(50)
            call.run(until: time)
            let s = call.buffer.statistics
            let counters = [s.packetsReceived, s.packetsLost, s.packetsDuplicated, s.retransmittedPacketsReceived,
                            s.packetsLate, s.framesReceived, s.framesDelivered, s.framesDropped, s.nackCount,
                            s.packetsNacked, s.packetsRecovered, s.packetsGivenUp, s.pliCount, s.jitterBufferEmittedCount]
            #expect(counters.allSatisfy { $0 >= 0 })
            #expect(s.jitter >= 0 && s.jitterBufferDelay >= 0 && s.totalFreezesDuration >= 0)
            #expect(s.packetsReceived <= call.packetsSent)
            #expect(s.framesDelivered + s.framesDropped <= s.framesReceived)
        }
    }
}
