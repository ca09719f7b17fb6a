/// ConferTokens: the session layer's JWTs (HS256, through jwt-kit) — ``TokenIssuer`` mints
/// them for `confer token` and verifies them for the server. What a token claims, and the
/// checks on its times and room, are ConferSession's ``TokenClaims``.
public enum ConferTokensModule {}
