import ConferClient
import Testing

/// The keepalive a server announces is a number off the wire: the client pings within its
/// bounds whatever it says.
@Suite struct PingIntervalTests {
    @Test func theServersKeepaliveIsHeldWithinBounds() {
        #expect(PingInterval.forKeepalive(10) == .seconds(10))
        #expect(PingInterval.forKeepalive(0.25) == .milliseconds(500) && PingInterval.forKeepalive(-3) == .milliseconds(500))
        #expect(PingInterval.forKeepalive(1e300) == .seconds(300) && PingInterval.forKeepalive(.infinity) == .seconds(300))
        #expect(PingInterval.forKeepalive(.nan) == .milliseconds(500))
    }
}
