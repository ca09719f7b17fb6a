/// A room's timers and limits, all in one place.
public struct RoomRules: Sendable, Hashable, Codable {
    /// How long a room stays open after its last member leaves.
    public var emptyTimeout: Duration = .seconds(10)
    /// How long a room created through the admin API waits for its first member.
    public var unusedTimeout: Duration = .seconds(30)
    /// How long a member may stay silent (no keepalive) before it counts as gone.
    public var keepaliveTimeout: Duration = .seconds(30)
    /// How long a member whose connection dropped may resume before it leaves.
    public var reconnectGrace: Duration = .seconds(20)
    /// How long a join request or an application waits for the host.
    public var joinRequestTimeout: Duration = .seconds(60)
    /// How long a device request waits for the member.
    public var deviceRequestTimeout: Duration = .seconds(30)
    /// The most sending members (host and participants); `nil` for no limit.
    public var memberLimit: Int? = nil
    /// The most join requests waiting at once, so a flood cannot grow the room's state.
    public var maximumPendingRequests: Int = 64
    /// Messages kept for members who join later.
    public var chatHistory: Int = 100
    /// The longest chat message, in UTF-8 bytes.
    public var maximumMessageBytes: Int = 4096
    /// Whether a connected member's token is renewed halfway through its lifetime (as
    /// LiveKit refreshes its tokens in a session), so a meeting outlasts the tokens it was
    /// joined with and a resume after their `exp` still works. Off: a member leaves when
    /// its token expires (the operator bounds sessions by the tokens it mints).
    public var refreshesTokens = true

    /// The defaults: 10 s, 30 s, 30 s, 20 s, 60 s, 30 s, no member limit, tokens refreshed.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case emptyTimeout, unusedTimeout, keepaliveTimeout, reconnectGrace, joinRequestTimeout, deviceRequestTimeout
        case memberLimit, maximumPendingRequests, chatHistory, maximumMessageBytes, refreshesTokens
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = RoomRules()
        func seconds(_ key: CodingKeys, _ fallback: Duration) throws -> Duration {
            guard let seconds = try c.decodeIfPresent(Double.self, forKey: key) else { return fallback }
            // A year at most: longer is a mistake, and past 2^63 ms it could not be held.
            guard seconds >= 0, seconds <= 366 * 86_400 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(seconds) s is not between 0 and a year")
            }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }
        emptyTimeout = try seconds(.emptyTimeout, defaults.emptyTimeout)
        unusedTimeout = try seconds(.unusedTimeout, defaults.unusedTimeout)
        keepaliveTimeout = try seconds(.keepaliveTimeout, defaults.keepaliveTimeout)
        reconnectGrace = try seconds(.reconnectGrace, defaults.reconnectGrace)
        joinRequestTimeout = try seconds(.joinRequestTimeout, defaults.joinRequestTimeout)
        deviceRequestTimeout = try seconds(.deviceRequestTimeout, defaults.deviceRequestTimeout)
        memberLimit = try c.decodeIfPresent(Int.self, forKey: .memberLimit)
        maximumPendingRequests = try c.decodeIfPresent(Int.self, forKey: .maximumPendingRequests) ?? defaults.maximumPendingRequests
        chatHistory = try c.decodeIfPresent(Int.self, forKey: .chatHistory) ?? defaults.chatHistory
        maximumMessageBytes = try c.decodeIfPresent(Int.self, forKey: .maximumMessageBytes) ?? defaults.maximumMessageBytes
        refreshesTokens = try c.decodeIfPresent(Bool.self, forKey: .refreshesTokens) ?? defaults.refreshesTokens
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func seconds(_ d: Duration) -> Double { Double(d.sessionMilliseconds) / 1000 }
        try c.encode(seconds(emptyTimeout), forKey: .emptyTimeout)
        try c.encode(seconds(unusedTimeout), forKey: .unusedTimeout)
        try c.encode(seconds(keepaliveTimeout), forKey: .keepaliveTimeout)
        try c.encode(seconds(reconnectGrace), forKey: .reconnectGrace)
        try c.encode(seconds(joinRequestTimeout), forKey: .joinRequestTimeout)
        try c.encode(seconds(deviceRequestTimeout), forKey: .deviceRequestTimeout)
        try c.encodeIfPresent(memberLimit, forKey: .memberLimit)
        try c.encode(maximumPendingRequests, forKey: .maximumPendingRequests)
        try c.encode(chatHistory, forKey: .chatHistory)
        try c.encode(maximumMessageBytes, forKey: .maximumMessageBytes)
        try c.encode(refreshesTokens, forKey: .refreshesTokens)
    }
}
