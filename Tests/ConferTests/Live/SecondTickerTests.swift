import Testing
import ConferMedia
@testable import ConferLive

/// The cadence of `confer receive --events`' `second` lines, in virtual time.
@Suite struct SecondTickerTests {
    static func at(_ seconds: Double) -> Timestamp { Timestamp(microseconds: Int64(seconds * 1_000_000)) }

    @Test func dueEveryWholeSecondFromTheStart() {
        var ticker = SecondTicker()
        var due: Bool
        due = ticker.isDue(at: Self.at(5))
        #expect(!due, "nothing is due before the start")
        ticker.start(at: Self.at(10.25))
        ticker.start(at: Self.at(10.9))
        #expect(ticker.next == Self.at(11.25), "a second start changes nothing")
        due = ticker.isDue(at: Self.at(11.249_999))
        #expect(!due)
        due = ticker.isDue(at: Self.at(11.25))
        #expect(due)
        due = ticker.isDue(at: Self.at(11.25))
        #expect(!due, "once per second")
        due = ticker.isDue(at: Self.at(12.3))
        #expect(due)
        #expect(ticker.next == Self.at(13.25) && ticker.count == 2)
    }

    @Test func aStallGivesOneReportThenKeepsTheGrid() {
        var ticker = SecondTicker()
        var due: Bool
        ticker.start(at: Self.at(0))
        due = ticker.isDue(at: Self.at(4.6))
        #expect(due, "four seconds missed: one report")
        #expect(ticker.count == 1 && ticker.next == Self.at(5))
        due = ticker.isDue(at: Self.at(4.99))
        #expect(!due)
        due = ticker.isDue(at: Self.at(5))
        #expect(due)
    }
}
