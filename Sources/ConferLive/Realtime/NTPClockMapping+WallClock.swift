#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConferMedia
import ConferRTP

extension NTPClockMapping {
    /// The mapping that gives `clock`'s readings as wall-clock NTP time (the system's real
    /// time as this is called), so sender reports tell a receiver or an SFU when media was
    /// captured, and streams from different senders can be lined up.
    static func wallClock(_ clock: some MediaClock) -> NTPClockMapping {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let unixTime = TimeDelta(microseconds: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
        return NTPClockMapping(unixTimeAtZero: unixTime - (clock.now - .zero))
    }
}
