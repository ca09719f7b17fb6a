/// How often a client pings, from the `keepaliveSeconds` the server's welcome announced.
package enum PingInterval {
    /// The shortest and the longest interval a client pings at, whatever the server says.
    package static let bounds: ClosedRange<Double> = 0.5 ... 300

    /// The server's `keepaliveSeconds` held within ``bounds`` (NaN: the shortest). The number
    /// comes off the wire: one too large for milliseconds would otherwise trap the client.
    package static func forKeepalive(_ seconds: Double) -> Duration {
        let held = seconds.isNaN ? bounds.lowerBound : min(max(seconds, bounds.lowerBound), bounds.upperBound)
        return .milliseconds(Int64(held * 1000))
    }
}
