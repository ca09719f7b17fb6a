/// A call server's timers and limits, all in one place.
public struct CallRules: Sendable, Hashable {
    /// How long a call rings before it ends with ``CallEndResult/noAnswer``.
    public var ringingTimeout: Duration = .seconds(60)
    /// How long an answered call may take to connect media before it ends with
    /// ``CallEndResult/timedOut``.
    public var connectionTimeout: Duration = .seconds(60)
    /// How long a side whose connection dropped may come back before the call ends with
    /// ``CallEndResult/connectionLost``.
    public var reconnectWindow: Duration = .seconds(10)
    /// How long a device may stay silent (no keepalive) before it counts as gone.
    public var keepaliveTimeout: Duration = .seconds(30)
    /// The longest timeout a dial may ask for.
    public var maximumTimeout: Duration = .seconds(600)
    /// Custom items a call may hold.
    public var maximumCustomItems = 32
    /// The longest custom item key, in UTF-8 bytes.
    public var maximumItemKeyBytes = 128
    /// The longest custom item value, in UTF-8 bytes.
    public var maximumItemValueBytes = 1024
    /// Whether a call to a user already in an answered call rings that user's devices
    /// (call waiting, for an app that can hold one call and take another). Off: the dial
    /// fails at once as ``SessionRefusal/calleeBusy`` and is logged as
    /// ``CallEndResult/dialFailed``, where it would otherwise ring on unanswered until
    /// ``ringingTimeout``. Calls that only ring make no one busy: two callers may ring one
    /// user at once, and the first answered leaves the other ringing.
    public var ringsThroughCalls = false
    /// Calls in progress a user may be part of at once, so a flood cannot grow the state.
    public var maximumCallsPerUser = 16
    /// Ended calls remembered, so that late messages about them are answered as such.
    public var rememberedEndedCalls = 1024
    /// Whether a signed-in device's token is renewed halfway through its lifetime, as a
    /// meeting member's is (``RoomRules/refreshesTokens``): a phone that waits for calls
    /// for hours can still sign in again after a dropped connection.
    public var refreshesTokens = true

    /// The defaults: 60 s ringing, 60 s to connect, 10 s to come back, 30 s keepalive.
    public init() {}
}

extension TokenClaims {
    /// The `room` claim of a token for calls: it admits to the call server, never to a room
    /// (no room may take this name).
    public static let callScope = "@calls"

    /// Claims for placing and answering calls as `identity`.
    public init(callsFor identity: String, name: String? = nil, notBefore: SessionTime, lifetime: Duration) {
        self.init(identity: identity, name: name, room: Self.callScope, role: .participant, notBefore: notBefore, lifetime: lifetime)
    }
}
