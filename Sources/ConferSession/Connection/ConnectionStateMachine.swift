/// A client's connection state with reconnection: a dropped connection is retried with
/// growing backoff until the grace window the server keeps the member for has passed;
/// a session the server ended is not retried.
public struct ConnectionStateMachine: Sendable, Hashable {
    /// What the driver should do.
    public enum Action: Sendable, Hashable {
        /// Nothing now.
        case none
        /// Open a connection (and join, resuming if the member was in the room).
        case connect
    }

    /// The state now.
    public private(set) var state: ConnectionState = .disconnected(nil)
    /// When the next connection attempt is due, while reconnecting.
    public private(set) var nextAttempt: SessionTime?
    /// How long reconnection goes on before giving up.
    public let grace: Duration
    /// The first retry's delay; each further one doubles, up to ``maximumBackoff``.
    public let initialBackoff: Duration
    /// The longest delay between attempts.
    public let maximumBackoff: Duration
    private var lostAt: SessionTime?
    private var attempts = 0

    /// A machine that retries for `grace`.
    public init(grace: Duration = .seconds(20), initialBackoff: Duration = .milliseconds(250), maximumBackoff: Duration = .seconds(2)) {
        self.grace = grace
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// The app asked to connect.
    public mutating func start() -> Action {
        guard case .disconnected = state else { return .none }
        state = .connecting
        return .connect
    }

    /// The connection opened and the server accepted the session.
    public mutating func opened() {
        switch state {
        case .connecting: state = .connected
        case .reconnecting: state = .reconnected
        default: break
        }
        lostAt = nil
        attempts = 0
        nextAttempt = nil
    }

    /// The connection dropped (or an attempt failed) without the server ending the session.
    public mutating func lost(at now: SessionTime) -> Action {
        switch state {
        case .connected, .reconnected:
            lostAt = now
            attempts = 1
            state = .reconnecting(attempt: 1)
            nextAttempt = now
            return .connect
        case .reconnecting, .connecting:
            let since = lostAt ?? now
            lostAt = since
            if now - since >= grace {
                finish(.timedOut)
                return .none
            }
            attempts += 1
            state = .reconnecting(attempt: attempts)
            nextAttempt = min(now + backoff(attempts - 1), since + grace)
            return .none
        case .disconnected:
            return .none
        }
    }

    /// The server ended the session (or the app left): no retry.
    public mutating func ended(_ reason: DisconnectReason) { finish(reason) }

    /// The first connection could not be opened (nothing listens there, or the address does
    /// not resolve): back to disconnected with no reason, as there was no session to end.
    public mutating func unreachable() { finish(nil) }

    /// Moves time on; says to connect when an attempt is due, or gives up after the grace.
    public mutating func tick(at now: SessionTime) -> Action {
        guard case .reconnecting = state, let due = nextAttempt, due <= now else { return .none }
        if let lostAt, now - lostAt >= grace {
            finish(.timedOut)
            return .none
        }
        nextAttempt = nil
        return .connect
    }

    /// While reconnecting: how long from `now` until the next attempt is due (zero when it
    /// is); nil once reconnection has given up or is not under way.
    public func delayBeforeAttempt(at now: SessionTime) -> Duration? {
        guard case .reconnecting = state, let next = nextAttempt else { return nil }
        return max(.zero, next - now)
    }

    private func backoff(_ retries: Int) -> Duration {
        var delay = initialBackoff
        for _ in 1 ..< max(1, retries) where delay < maximumBackoff { delay *= 2 }
        return min(delay, maximumBackoff)
    }

    private mutating func finish(_ reason: DisconnectReason?) {
        state = .disconnected(reason)
        nextAttempt = nil
        lostAt = nil
        attempts = 0
    }
}
