public import ConferSession
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JWTKit

/// Why a secret cannot sign tokens.
public enum TokenSecretError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HS256 needs at least 32 bytes of secret; shorter ones are guessable (and trip an
    /// assertion inside jwt-kit).
    case tooShort(bytes: Int)

    public var description: String {
        switch self {
        case .tooShort(let bytes):
            "the secret has \(bytes) bytes; HS256 needs at least \(TokenIssuer.minimumSecretBytes) (try `openssl rand -hex 32`)"
        }
    }
}

/// Mints and verifies Confer's tokens: JWTs signed with HS256 over one shared secret, with
/// the identity (`sub`), display name, room, role, `nbf`, `exp` and, when the claims have
/// it, `iat`.
///
/// Verification checks the signature here and the claims with ``TokenClaims/check(room:at:)``
/// at the caller's time, so the server's clock (or a test's) decides expiry.
public struct TokenIssuer: Sendable {
    /// The shortest secret accepted, in bytes.
    public static let minimumSecretBytes = 32
    /// The longest token read; anything longer is refused unread.
    public static let maximumTokenBytes = 4096

    private let keys: JWTKeyCollection

    /// An issuer for `secret`, refused when it is too short.
    public init(secret: String) async throws(TokenSecretError) {
        let bytes = secret.utf8.count
        guard bytes >= Self.minimumSecretBytes else { throw .tooShort(bytes: bytes) }
        let keys = JWTKeyCollection()
        // Keys in order: the same claims always make the same token (jwt-kit's default
        // encoder writes them in a different order each run).
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, serializer: DefaultJWTSerializer(jsonEncoder: encoder))
        self.keys = keys
    }

    /// A signed token carrying `claims`.
    public func sign(_ claims: TokenClaims) async -> String {
        // HS256 over a JSON payload of strings and integers cannot fail.
        (try? await keys.sign(Payload(claims))) ?? ""
    }

    /// The claims of a token whose signature verifies and whose times and room check at
    /// `now`; otherwise the refusal to show.
    public func verify(_ token: String, room: String?, at now: SessionTime) async throws(SessionRefusal) -> TokenClaims {
        guard token.utf8.count <= Self.maximumTokenBytes else { throw .invalidToken }
        let payload: Payload
        do { payload = try await keys.verify(token, as: Payload.self) } catch { throw .invalidToken }
        guard let claims = payload.claims else { throw .invalidToken }
        try claims.check(room: room, at: now)
        return claims
    }

    /// The JWT body. Times are checked by ``TokenClaims``, not by jwt-kit, so they follow
    /// the injected clock.
    private struct Payload: JWTPayload {
        var sub: String
        var name: String
        var room: String
        var role: String
        var nbf: Int64
        var exp: Int64
        var iat: Int64?

        init(_ claims: TokenClaims) {
            sub = claims.identity
            name = claims.name
            room = claims.room
            role = claims.role.rawValue
            nbf = claims.notBefore
            exp = claims.expires
            iat = claims.issuedAt
        }

        var claims: TokenClaims? {
            guard let role = MemberRole(rawValue: role) else { return nil }
            return TokenClaims(identity: sub, name: name, room: room, role: role, notBefore: nbf, expires: exp, issuedAt: iat)
        }

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
