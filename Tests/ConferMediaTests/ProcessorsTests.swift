import ConferMedia
import Testing

/// Cores free for a job by default.
@Suite struct ProcessorsTests {
    @Test func freeCoresAreThoseNoOtherThreadIsRunningOn() {
        #expect(Processors.free(online: 2, othersRunnable: 0) == 2, "an idle machine: all")
        #expect(Processors.free(online: 2, othersRunnable: 1) == 1)
        #expect(Processors.free(online: 2, othersRunnable: 7) == 1, "always one")
        #expect(Processors.free(online: 8, othersRunnable: nil) == 8)
        #expect(Processors.free(online: 64, othersRunnable: 0, limit: 16) == 16)
        #expect(Processors.free(online: 4, othersRunnable: -3) == 4)
        #expect(Processors.online >= 1)
        #expect((Processors.othersRunnable ?? 0) >= 0)
    }
}
