import ConferSession
import ConferTokens
import Foundation
import Testing

/// What the server's token issuer signs and takes back.
@Suite struct TokenIssuerTests {
    let secret = "a secret of thirty-two bytes or more, for tests"
    let now = SessionTime(milliseconds: 1_795_934_360_927)

    /// The same claims make the same token, under any issuer of the same secret, with the
    /// payload's keys in order (jwt-kit's default wrote them in a new order each run).
    @Test func theSameClaimsMakeTheSameToken() async throws {
        let claims = TokenClaims(identity: "alice", name: "Alice", room: "standup", role: .host, notBefore: now, lifetime: .seconds(3600))
        let first = try await TokenIssuer(secret: secret), second = try await TokenIssuer(secret: secret)
        let token = await first.sign(claims)
        let again = await first.sign(claims), elsewhere = await second.sign(claims)
        #expect(again == token && elsewhere == token)
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let json = String(decoding: try #require(Data(base64Encoded: payload)), as: UTF8.self)
        #expect(json == #"{"exp":1795937960,"iat":1795934360,"name":"Alice","nbf":1795934360,"role":"host","room":"standup","sub":"alice"}"#)
        let verified = try await second.verify(token, room: "standup", at: now)
        #expect(verified == claims && verified.issuedAt == 1_795_934_360)
    }

    /// Each way a token is refused, and a token an application signed to last for ever.
    @Test func tokensAreRefusedForWhatIsWrongWithThem() async throws {
        let issuer = try await TokenIssuer(secret: secret)
        let other = try await TokenIssuer(secret: "another secret, also thirty-two bytes long")
        let claims = TokenClaims(identity: "bob", room: "standup", role: .participant, notBefore: now, lifetime: .seconds(60))
        await #expect(throws: SessionRefusal.invalidToken) { try await issuer.verify(other.sign(claims), room: "standup", at: now) }
        await #expect(throws: SessionRefusal.tokenExpired) { try await issuer.verify(issuer.sign(claims), room: nil, at: now + .seconds(60)) }
        await #expect(throws: SessionRefusal.tokenNotYetValid) { try await issuer.verify(issuer.sign(claims), room: nil, at: now - .seconds(1)) }
        await #expect(throws: SessionRefusal.wrongRoom) { try await issuer.verify(issuer.sign(claims), room: "retro", at: now) }
        let long = TokenClaims(identity: String(repeating: "b", count: 4000), room: "standup", role: .participant, notBefore: now,
                               lifetime: .seconds(60))
        await #expect(throws: SessionRefusal.invalidToken) { try await issuer.verify(issuer.sign(long), room: nil, at: now) }
        await #expect(throws: SessionRefusal.invalidToken) { try await issuer.verify("standup-host", room: nil, at: now) }

        let forever = TokenClaims(identity: "carol", name: "Carol", room: "standup", role: .host, notBefore: 0, expires: .max)
        let verified = try await issuer.verify(issuer.sign(forever), room: "standup", at: now)
        // Signed without `iat`, as an application may: none comes back, and it dates from `nbf`.
        #expect(verified == forever && verified.expiry == SessionTime(milliseconds: .max))
        #expect(verified.issuedAt == nil && verified.issued == 0)
        await #expect(throws: TokenSecretError.tooShort(bytes: 5)) { try await TokenIssuer(secret: "short") }
    }
}
