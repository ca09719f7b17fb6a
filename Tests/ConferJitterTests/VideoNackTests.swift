import ConferJitter
import ConferMedia
import Testing

@Suite("NACK tracker and keyframe requests")
struct VideoNackTests {
    static let rtt = TimeDelta.milliseconds(100)

    @Test("a gap is NACKed at once, repeated every retry interval, batched, and recovered packets leave the list")
    func retries() {
        var tracker = NackTracker()
        #expect(tracker.packetArrived(10, isRetransmission: false, at: .zero) == .inOrder)
        #expect(tracker.packetArrived(14, isRetransmission: false, at: .milliseconds(1)) == .gap(3))
        #expect(tracker.nextWakeup(retryInterval: Self.rtt) == .milliseconds(1))
        #expect(tracker.poll(at: .milliseconds(1), retryInterval: Self.rtt) == [11, 12, 13])
        #expect(tracker.poll(at: .milliseconds(50), retryInterval: Self.rtt).isEmpty)
        #expect(tracker.nextWakeup(retryInterval: Self.rtt) == .milliseconds(101))
        #expect(tracker.packetArrived(12, isRetransmission: true, at: .milliseconds(60)) == .recovered)
        #expect(tracker.poll(at: .milliseconds(101), retryInterval: Self.rtt) == [11, 13])
        // The interval never drops below the minimum, whatever the RTT.
        #expect(tracker.poll(at: .milliseconds(110), retryInterval: .zero).isEmpty)
        #expect(tracker.poll(at: .milliseconds(121), retryInterval: .zero) == [11, 13])
        let stats = tracker.statistics
        #expect(stats.nackCount == 3 && stats.packetsNacked == 7 && stats.packetsMissing == 3 && stats.packetsRecovered == 1)
    }

    @Test("numbers are given up after the retry limit or the age limit, and reported once")
    func givingUp() {
        var tracker = NackTracker(configuration: .init(maxRetries: 3, maxAge: .milliseconds(1000)))
        _ = tracker.packetArrived(0, isRetransmission: false, at: .zero)
        _ = tracker.packetArrived(2, isRetransmission: false, at: .zero)
        var time = Timestamp.zero
        var sent = 0
        while tracker.pendingCount > 0 {
            sent += tracker.poll(at: time, retryInterval: Self.rtt).count
            if !tracker.givenUp.isEmpty { #expect(tracker.givenUp == [1]) }
            time += Self.rtt
        }
        #expect(sent == 3 && tracker.statistics.packetsGivenUp == 1)

        var aging = NackTracker(configuration: .init(maxRetries: 100, maxAge: .milliseconds(250)))
        _ = aging.packetArrived(0, isRetransmission: false, at: .zero)
        _ = aging.packetArrived(2, isRetransmission: false, at: .zero)
        #expect(aging.poll(at: .milliseconds(200), retryInterval: Self.rtt) == [1])
        #expect(aging.poll(at: .milliseconds(251), retryInterval: Self.rtt).isEmpty)
        #expect(aging.givenUp == [1] && aging.pendingCount == 0)
    }

    @Test("a gap larger than the list gives up its oldest numbers and reports an overflow")
    func overflow() {
        var tracker = NackTracker(configuration: .init(maxListSize: 100))
        _ = tracker.packetArrived(0, isRetransmission: false, at: .zero)
        #expect(tracker.packetArrived(500, isRetransmission: false, at: .zero) == .overflow)
        #expect(tracker.pendingCount == 100 && tracker.oldestPending == 400)
        #expect(tracker.statistics.packetsGivenUp == 399 && tracker.statistics.listOverflows == 1)
        let batch = tracker.poll(at: .zero, retryInterval: Self.rtt)
        #expect(batch.count == 100 && batch.first == 400 && batch.last == 499)
    }

    @Test("a retransmission newer than everything opens no gap; forgetting drops what the buffer moved past")
    func retransmissionsAndForgetting() {
        var tracker = NackTracker()
        _ = tracker.packetArrived(0, isRetransmission: false, at: .zero)
        #expect(tracker.packetArrived(5, isRetransmission: true, at: .zero) == .inOrder)
        #expect(tracker.pendingCount == 0)
        _ = tracker.packetArrived(10, isRetransmission: false, at: .zero)
        #expect(tracker.pendingCount == 9)
        tracker.forget(before: 7)
        #expect(tracker.oldestPending == 7 && tracker.pendingCount == 3)
    }

    @Test("packets that were only reordered teach the tracker to wait before its first NACK")
    func reorderingWait() {
        var tracker = NackTracker()
        var number: Int64 = 0
        var time = Timestamp.zero
        _ = tracker.packetArrived(number, isRetransmission: false, at: time)
        // Twenty times: a packet overtakes its predecessor, which turns up 15 ms later.
        for _ in 0 ..< 20 {
            time += .milliseconds(30)
            _ = tracker.packetArrived(number + 2, isRetransmission: false, at: time)
            _ = tracker.poll(at: time, retryInterval: Self.rtt)
            #expect(tracker.packetArrived(number + 1, isRetransmission: false, at: time + .milliseconds(15)) == .recovered)
            number += 2
        }
        #expect(tracker.firstRequestDelay == .milliseconds(15))
        // Wasted requests were counted until the tracker learned to wait.
        let wasted = tracker.statistics.packetsNackedNeedlessly
        #expect(wasted >= 1 && wasted < 20)
        _ = tracker.packetArrived(number + 2, isRetransmission: false, at: time + .milliseconds(30))
        #expect(tracker.poll(at: time + .milliseconds(40), retryInterval: Self.rtt).isEmpty)
        #expect(tracker.poll(at: time + .milliseconds(45), retryInterval: Self.rtt) == [UInt16(number + 1)])
    }

    @Test("keyframe requests: one per max(RTT, 300 ms) while waiting, none once a keyframe arrived; FIR numbers itself")
    func keyframeThrottle() {
        var requester = KeyframeRequester()
        var sent = 0
        var time = Timestamp.zero
        // Fifty undecodable frames 33 ms apart ask for a keyframe each: requests go out at 0,
        // 330, 660, 990 and 1320 ms.
        for _ in 0 ..< 50 {
            if requester.keyframeNeeded(.frameLost, at: time, rtt: Self.rtt) != nil { sent += 1 }
            if requester.poll(at: time, rtt: Self.rtt) != nil { sent += 1 }
            time += .milliseconds(33)
        }
        #expect(sent == 5 && requester.pliCount == 5)
        requester.keyframeReceived()
        #expect(requester.poll(at: time + .seconds(1), rtt: Self.rtt) == nil)
        #expect(requester.nextWakeup(rtt: Self.rtt) == nil)
        // A long RTT stretches the interval.
        var slow = KeyframeRequester(method: .fir)
        let first = slow.keyframeNeeded(.decoderFailed, at: .zero, rtt: .milliseconds(800))
        #expect(first == KeyframeRequest(reason: .decoderFailed, method: .fir, firSequenceNumber: 1))
        #expect(slow.poll(at: .milliseconds(700), rtt: .milliseconds(800)) == nil)
        #expect(slow.poll(at: .milliseconds(800), rtt: .milliseconds(800))?.firSequenceNumber == 2)
        #expect(slow.firCount == 2 && slow.pliCount == 0)
    }
}
