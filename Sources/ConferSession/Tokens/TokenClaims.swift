/// What a token says about its bearer. Signed and verified by ConferTokens; checked here,
/// at whole seconds as JWT keeps them.
public struct TokenClaims: Sendable, Codable, Hashable {
    /// The member's identity, unique in a room.
    public var identity: String
    /// The display name.
    public var name: String
    /// The one room the token admits to.
    public var room: String
    /// The role the bearer joins with.
    public var role: MemberRole
    /// Unix seconds before which the token is not valid.
    public var notBefore: Int64
    /// Unix seconds from which the token is no longer valid.
    public var expires: Int64
    /// Unix seconds at which the token was minted (JWT's `iat`), when it says.
    public var issuedAt: Int64?

    /// Claims minted at `notBefore` and valid from then for `lifetime`.
    public init(identity: String, name: String? = nil, room: String, role: MemberRole, notBefore: SessionTime,
                lifetime: Duration) {
        self.identity = identity
        self.name = name ?? identity
        self.room = room
        self.role = role
        self.notBefore = notBefore.wholeSeconds
        expires = (notBefore + lifetime).wholeSeconds
        issuedAt = self.notBefore
    }

    /// Claims with the times given in Unix seconds.
    public init(identity: String, name: String, room: String, role: MemberRole, notBefore: Int64, expires: Int64,
                issuedAt: Int64? = nil) {
        self.identity = identity
        self.name = name
        self.room = room
        self.role = role
        self.notBefore = notBefore
        self.expires = expires
        self.issuedAt = issuedAt
    }

    /// The Unix second the token dates from: when it was minted, or, for a token that does
    /// not say, when it became valid. A room that kicked its bearer takes only tokens from a
    /// later second.
    public var issued: Int64 { issuedAt ?? notBefore }

    /// When the token stops being valid. An `exp` too far ahead for milliseconds (a token an
    /// application signed to last "forever") is the end of the clock.
    public var expiry: SessionTime {
        let (milliseconds, overflow) = expires.multipliedReportingOverflow(by: 1000)
        return SessionTime(milliseconds: overflow ? (expires > 0 ? .max : .min) : milliseconds)
    }

    /// Checks the times and the room; the signature was checked by whoever decoded it.
    /// When a session holding this token is given a fresh one: halfway through its lifetime
    /// (`iat`, or `nbf`, to `exp`), a second after its issue at the earliest; nil for one
    /// that never expires (whose `exp` is past what ``SessionTime`` holds) or has no lifetime.
    public var refreshTime: SessionTime? {
        guard expiry < SessionTime(milliseconds: .max) else { return nil }
        let (lifetime, overflow) = expires.subtractingReportingOverflow(issued)
        guard !overflow, lifetime > 0 else { return nil }
        let (half, halfOverflow) = lifetime.multipliedReportingOverflow(by: 500)
        let (start, startOverflow) = issued.multipliedReportingOverflow(by: 1000)
        let (due, dueOverflow) = start.addingReportingOverflow(max(half, 1000))
        return halfOverflow || startOverflow || dueOverflow ? nil : SessionTime(milliseconds: due)
    }

    /// The same grant minted anew at `now`: identity, name, room and role as they are, valid
    /// from `now`'s second for as long as this token was (`exp` − `iat`), `iat` then.
    public func refreshed(at now: SessionTime) -> TokenClaims {
        let second = now.wholeSeconds
        let (difference, lifetimeOverflow) = expires.subtractingReportingOverflow(issued)
        let lifetime = lifetimeOverflow ? (expires > issued ? Int64.max : 0) : max(difference, 0)
        let (expires, overflow) = second.addingReportingOverflow(lifetime)
        return TokenClaims(identity: identity, name: name, room: room, role: role, notBefore: second,
                           expires: overflow ? .max : expires, issuedAt: second)
    }

    public func check(room expected: String?, at now: SessionTime) throws(SessionRefusal) {
        let second = now.wholeSeconds
        if second < notBefore { throw .tokenNotYetValid }
        if second >= expires { throw .tokenExpired }
        if let expected, expected != room { throw .wrongRoom }
        if identity.isEmpty || room.isEmpty || identity.utf8.count > 256 || room.utf8.count > 256 { throw .invalidToken }
    }
}
