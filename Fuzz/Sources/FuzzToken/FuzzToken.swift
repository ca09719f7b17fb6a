import FuzzSupport
// libFuzzer target: join tokens, as the server reads them from every join and call sign-in.
// Odd first byte: the rest is a token as text, verified as it came (a seed signed with this
// target's secret, or any mangling of one). Even first byte: the rest says claims (role, three
// big-endian 8-byte times and four strings apart by zero bytes: identity, name, room, the room joined),
// which are signed with the target's secret and verified. Either way, what verifies must pass
// TokenClaims.check at that time and join a room without trapping at any later time; what is
// signed here must come back with the very claims signed, or with the refusal check gives.
import ConferSession
import ConferTokens
import FuzzTraffic

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 1 {
        let token = String(decoding: input.bytes(upTo: size), as: UTF8.self)
        let now = SessionTime(milliseconds: 1_795_934_360_927)
        switch verify(token, room: nil, at: now) {
        case .success(let claims): join(claims, at: now)
        case .failure(let refusal): expectTokenRefusal(refusal)
        }
        return 0
    }

    let role = [MemberRole.host, .participant, .observer][Int(input.byte() ?? 0) % 3]
    let notBefore = input.int64(), expires = input.int64(), now = SessionTime(milliseconds: input.int64())
    let strings = input.bytes(upTo: size).split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    func string(_ index: Int) -> String { index < strings.count ? strings[index] : "" }
    let claims = TokenClaims(identity: string(0), name: string(1), room: string(2), role: role, notBefore: notBefore, expires: expires)
    let joined = strings.count > 3 ? string(3) : nil
    let token = awaited { await issuer.sign(claims) }
    let verified = verify(token, room: joined, at: now)

    let expected: Result<TokenClaims, SessionRefusal>
    do throws(SessionRefusal) {
        if token.utf8.count > TokenIssuer.maximumTokenBytes { throw .invalidToken }
        try claims.check(room: joined, at: now)
        expected = .success(claims)
    } catch {
        expected = .failure(error)
    }
    require(verified == expected, "signed \(claims), verified \(verified) where check says \(expected)")
    if case .success(let claims) = verified { join(claims, at: now) }
    return 0
}

/// The issuer every input is signed and verified with.
private let issuer = awaited { try! await TokenIssuer(secret: "confer fuzzing secret, thirty-two bytes or more") }

/// Joins a room for `claims` at `now`, then lets time run to the token's end and past it:
/// the member is in (or waiting) first, and gone at the end of the clock.
private func join(_ claims: TokenClaims, at now: SessionTime) {
    require((try? claims.check(room: claims.room, at: now)) != nil, "verified claims that do not check: \(claims)")
    var room = RoomState(info: RoomInfo(id: claims.room), at: now, random: SeededGenerator(seed: 1))
    let address = SessionAddress(identity: claims.identity, connection: 1)
    _ = room.join(claims, on: address, at: now)
    let present = room.members.contains { $0.identity == claims.identity } || room.joinRequests.contains { $0.identity == claims.identity }
    require(present, "a verified \(claims.role) is neither in the room nor waiting")
    _ = room.nextDeadline
    _ = room.tick(at: max(now, claims.expiry))
    _ = room.tick(at: SessionTime(milliseconds: .max))
    require(!room.members.contains { $0.identity == claims.identity }, "a member outlived the end of the clock")
}

/// A token that does not verify is refused for what a token can be refused for.
private func expectTokenRefusal(_ refusal: SessionRefusal) {
    switch refusal {
    case .invalidToken, .tokenExpired, .tokenNotYetValid, .wrongRoom: break
    default: fail("a token refused for \(refusal)")
    }
}

/// The issuer's verdict on `token` for `room` at `now`.
private func verify(_ token: String, room: String?, at now: SessionTime) -> Result<TokenClaims, SessionRefusal> {
    awaited { () async -> Result<TokenClaims, SessionRefusal> in
        do throws(SessionRefusal) { return .success(try await issuer.verify(token, room: room, at: now)) } catch { return .failure(error) }
    }
}

@_cdecl("FuzzToken_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
