import Testing
import ConferMedia
@testable import ConferRTP

@Test func ntpTimeSplitsIntoSecondsAndFractions() {
    let time = NTPTime(sinceEpoch: .seconds(1.5))
    #expect(time.seconds == 1)
    #expect(time.fraction == 0x8000_0000)
    #expect(time.sinceEpoch == .milliseconds(1500))
    #expect(NTPTime(seconds: 0xB44D_B705, fraction: 0x2030_0000).compact.rawValue == 0xB705_2030)
}

@Test func microsecondsSurviveTheRoundTripThroughNTP() {
    var random = SeededRandom(seed: 7)
    for _ in 0 ..< 10_000 {
        let us = Int64(random.next() % 4_000_000_000_000_000)
        #expect(NTPTime(sinceEpoch: TimeDelta(microseconds: us)).sinceEpoch.microseconds == us)
    }
}

@Test func ntpArithmeticIsSignedAndWraps() {
    let a = NTPTime(seconds: 10, fraction: 0)
    #expect(a + .milliseconds(-250) == NTPTime(seconds: 9, fraction: 0xC000_0000))
    #expect((a + .milliseconds(-250)) - a == .milliseconds(-250))
    let nearWrap = NTPTime(seconds: .max, fraction: 0x8000_0000)
    #expect((nearWrap + .seconds(1)) - nearWrap == .seconds(1))
    #expect((nearWrap + .seconds(1)).seconds == 0)
}

@Test func compactTimeConvertsSpans() {
    #expect(CompactNTPTime(.milliseconds(5250)).rawValue == 0x0005_4000)
    #expect(CompactNTPTime(rawValue: 0x0005_4000).timeDelta == .milliseconds(5250))
    #expect(CompactNTPTime(.milliseconds(-3)).rawValue == 0)
    // 1/65536 s is 15.2587890625 µs: rounded to 15.
    #expect(CompactNTPTime(rawValue: 1).timeDelta == TimeDelta(microseconds: 15))
}

@Test func clockMappingPlacesMediaTimeOnTheNTPTimeline() {
    let mapping = NTPClockMapping(unixTimeAtZero: .seconds(1_700_000_000))
    #expect(mapping.ntpTime(at: .zero).seconds == UInt32(1_700_000_000 + 2_208_988_800))
    let later = Timestamp(microseconds: 12_345_678)
    #expect(mapping.ntpTime(at: later) - mapping.ntpTime(at: .zero) == TimeDelta(microseconds: 12_345_678))
    #expect(mapping.timestamp(at: mapping.ntpTime(at: later)) == later)
}
