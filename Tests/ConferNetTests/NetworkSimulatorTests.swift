import Testing
import ConferMedia
@testable import ConferNet

@Suite struct NetworkSimulatorTests {
    @Test func forwardAndBackwardPathsRunInVirtualTime() {
        var sim = NetworkSimulator<String>(forward: NetworkConditions(delay: .milliseconds(30)),
                                           backward: NetworkConditions(delay: .milliseconds(10)), seed: 1)
        sim.send("media", byteCount: 1000, direction: .forward)
        #expect(sim.nextDeliveryTime == .milliseconds(30))
        #expect(sim.advance(to: .milliseconds(29)).isEmpty)
        let media = sim.advance(by: .milliseconds(1))
        #expect(media.map(\.payload) == ["media"] && media.map(\.direction) == [.forward])
        #expect(sim.now == .milliseconds(30))

        sim.send("feedback", byteCount: 80, direction: .backward)
        sim.send("media 2", byteCount: 1000, direction: .forward)
        let next = sim.advanceToNextDelivery()
        #expect(next.map(\.payload) == ["feedback"] && sim.now == .milliseconds(40))
        #expect(sim.advanceToNextDelivery().map(\.payload) == ["media 2"] && sim.now == .milliseconds(60))
        #expect(sim.advanceToNextDelivery().isEmpty && sim.nextDeliveryTime == nil && sim.now == .milliseconds(60))
    }

    @Test func simultaneousDeliveriesComeOutInSendOrder() {
        var sim = NetworkSimulator<Int>(forward: NetworkConditions(delay: .milliseconds(20)),
                                        backward: NetworkConditions(delay: .milliseconds(10)), seed: 1)
        sim.send(0, byteCount: 100, direction: .forward)
        sim.send(1, byteCount: 100, direction: .forward)
        _ = sim.advance(to: .milliseconds(10))
        sim.send(2, byteCount: 100, direction: .backward)
        sim.send(3, byteCount: 100, direction: .forward)  // due at 30 ms
        // 0, 1 (forward) and 2 (backward) are all due at 20 ms: send order decides.
        #expect(sim.advance(to: .milliseconds(20)).map(\.payload) == [0, 1, 2])
        sim.send(4, byteCount: 100, direction: .backward)  // due at 30 ms too, but sent after 3
        #expect(sim.advance(to: .milliseconds(30)).map(\.payload) == [3, 4])
    }

    @Test func wakesSleepersOnTheVirtualClock() async throws {
        var sim = NetworkSimulator<Int>(forward: .perfect, seed: 1)
        let clock = sim.clock
        async let woke: Void = clock.sleep(until: .seconds(5))
        while clock.sleeperCount == 0 { await Task.yield() }
        _ = sim.advance(to: .seconds(5))
        try await woke
        #expect(clock.now == .seconds(5))
    }

    @Test func twoMinutesOfMediaAndFeedbackRunFasterThanRealTime() {
        // Two minutes at 200 packets/s with feedback every 50 ms: virtual time, so this takes milliseconds.
        var sim = NetworkSimulator<Int>(
            forward: NetworkConditions(delay: .milliseconds(40), jitter: .uniform(.milliseconds(5)), loss: 0.02),
            backward: NetworkConditions(delay: .milliseconds(40)), seed: 42)
        var media = 0, feedback = 0
        for tick in 0..<24_000 {
            sim.send(tick, byteCount: 1200, direction: .forward)
            if tick % 10 == 0 { sim.send(tick, byteCount: 80, direction: .backward) }
            for delivery in sim.advance(by: .milliseconds(5)) {
                if delivery.direction == .forward { media += 1 } else { feedback += 1 }
            }
        }
        #expect(sim.now == .seconds(120))
        #expect(feedback == 2_400 - sim.backward.packetsInFlight)
        #expect(abs(Double(media + sim.forward.packetsInFlight) / 24_000 - 0.98) < 0.005)
        #expect(sim.forward.statistics.packetsReordered == 0)
    }
}
