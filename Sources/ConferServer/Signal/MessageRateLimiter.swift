import ConferSession

/// A token bucket per connection: `rate` messages a second on average, bursts up to
/// `burst`. A value type on an injected clock, so its rule is tested in virtual time.
struct MessageRateLimiter: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: SessionTime?

    init(rate: Double = 50, burst: Double = 100) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Whether a message arriving at `now` may be handled.
    mutating func admit(at now: SessionTime) -> Bool {
        if let last {
            let elapsed = Double(max(0, now.milliseconds - last.milliseconds)) / 1000
            tokens = min(burst, tokens + elapsed * rate)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
