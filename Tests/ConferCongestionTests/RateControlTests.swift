import ConferCongestion
import ConferMedia
import Testing

@Suite struct AIMDRateControllerTests {
    @Test func farFromCapacityItGrowsEightPercentASecond() {
        var controller = AIMDRateController(startBitrate: .megabitsPerSecond(1))
        var time = Timestamp.seconds(1)
        controller.update(usage: .normal, acknowledgedBitrate: .megabitsPerSecond(1), at: time)
        #expect(controller.state == .increase)
        #expect(controller.bitrate == .bitsPerSecond(1_001_000))  // the 1 kbit/s floor of a step
        for _ in 0 ..< 10 {
            time += .milliseconds(100)
            controller.update(usage: .normal, acknowledgedBitrate: .megabitsPerSecond(1), at: time)
        }
        #expect(controller.bitrate >= .bitsPerSecond(1_080_000) && controller.bitrate <= .bitsPerSecond(1_082_000))
        #expect(controller.linkCapacityEstimate == nil)
    }

    @Test func itNeverRunsFarAheadOfTheThroughput() {
        var controller = AIMDRateController(startBitrate: .kilobitsPerSecond(250))
        var time = Timestamp.seconds(1)
        for _ in 0 ..< 20 {
            time += .milliseconds(100)
            controller.update(usage: .normal, acknowledgedBitrate: .kilobitsPerSecond(100), at: time)
        }
        // 1.5 × 100 + 10 kbit/s is below where it started: no increase, and no decrease.
        #expect(controller.bitrate == .kilobitsPerSecond(250))
    }

    @Test func overuseCutsToBetaTimesThroughputThenHoldsThenCreepsAdditively() {
        var controller = AIMDRateController(startBitrate: .megabitsPerSecond(1))
        controller.roundTripTime = .milliseconds(100)
        var time = Timestamp.seconds(1)
        controller.update(usage: .overusing, acknowledgedBitrate: .kilobitsPerSecond(900), at: time)
        #expect(controller.bitrate == .kilobitsPerSecond(765))
        #expect(controller.state == .hold)
        #expect(controller.linkCapacityEstimate == .kilobitsPerSecond(900))
        // Not again within one RTT, unless the throughput collapsed.
        #expect(!controller.isTimeToReduceFurther(at: time + .milliseconds(50), throughput: .kilobitsPerSecond(700)))
        #expect(controller.isTimeToReduceFurther(at: time + .milliseconds(50), throughput: .kilobitsPerSecond(300)))
        #expect(controller.isTimeToReduceFurther(at: time + .milliseconds(100), throughput: .kilobitsPerSecond(700)))

        for _ in 0 ..< 5 {
            time += .milliseconds(100)
            controller.update(usage: .underusing, acknowledgedBitrate: .kilobitsPerSecond(800), at: time)
        }
        #expect(controller.bitrate == .kilobitsPerSecond(765))

        time += .milliseconds(100)
        controller.update(usage: .normal, acknowledgedBitrate: .kilobitsPerSecond(770), at: time)
        let start = controller.bitrate
        let rate = controller.nearMaxIncreaseRate
        for _ in 0 ..< 10 {
            time += .milliseconds(100)
            controller.update(usage: .normal, acknowledgedBitrate: .kilobitsPerSecond(770), at: time)
        }
        // Near a known capacity: about one packet per response time, far below 8 %/s.
        let gained = controller.bitrate - start
        #expect(gained >= rate * 0.95 && gained <= rate * 1.05)
        #expect(gained < start * 0.04)
        #expect(rate > .kilobitsPerSecond(10) && rate < .kilobitsPerSecond(30))
    }

    @Test func itStaysWithinItsBounds() {
        var controller = AIMDRateController(startBitrate: .kilobitsPerSecond(100), minimumBitrate: .kilobitsPerSecond(50),
                                            maximumBitrate: .kilobitsPerSecond(120))
        controller.update(usage: .overusing, acknowledgedBitrate: .kilobitsPerSecond(10), at: .seconds(1))
        #expect(controller.bitrate == .kilobitsPerSecond(50))
        var time = Timestamp.seconds(1)
        for _ in 0 ..< 100 {
            time += .milliseconds(100)
            controller.update(usage: .normal, acknowledgedBitrate: .kilobitsPerSecond(200), at: time)
        }
        #expect(controller.bitrate == .kilobitsPerSecond(120))
        controller.setEstimate(.megabitsPerSecond(5), at: time)
        #expect(controller.bitrate == .kilobitsPerSecond(120))
    }
}

@Suite struct AcknowledgedBitrateTests {
    @Test func itTracksTheReceiveRate() {
        var estimator = AcknowledgedBitrateEstimator()
        var time = Timestamp.seconds(1)
        // 1200-byte packets every 9.6 ms: 1 Mbit/s.
        for _ in 0 ..< 52 {
            estimator.update(receiveTime: time, size: 1200)
            time += TimeDelta(microseconds: 9600)
        }
        #expect(estimator.bitrate == nil)  // the first window is 500 ms
        for _ in 0 ..< 200 {
            estimator.update(receiveTime: time, size: 1200)
            time += TimeDelta(microseconds: 9600)
        }
        let steady = estimator.bitrate!
        #expect(steady > .kilobitsPerSecond(960) && steady < .kilobitsPerSecond(1040))
        // The rate halves: within a second the estimate follows.
        for _ in 0 ..< 52 {
            estimator.update(receiveTime: time, size: 1200)
            time += TimeDelta(microseconds: 19_200)
        }
        #expect(estimator.bitrate! < .kilobitsPerSecond(600))
        #expect(estimator.bitrate! > .kilobitsPerSecond(440))
    }

    @Test func oneOutlierWindowBarelyMovesIt() {
        var estimator = AcknowledgedBitrateEstimator()
        var time = Timestamp.seconds(1)
        for _ in 0 ..< 300 {
            estimator.update(receiveTime: time, size: 1200)
            time += TimeDelta(microseconds: 9600)
        }
        let before = estimator.bitrate!
        // A burst: 30 packets in 2 ms, then back to the steady pace.
        for _ in 0 ..< 30 { estimator.update(receiveTime: time, size: 1200) }
        for _ in 0 ..< 16 {
            time += TimeDelta(microseconds: 9600)
            estimator.update(receiveTime: time, size: 1200)
        }
        #expect(estimator.bitrate! < before * 1.25)
    }
}
