import ConferSession
import ConferTokens
import FuzzSupport

// Seeds for FuzzToken. Even first byte: claims for the target to sign, one for each way a
// token is taken or refused (each role, expired, not yet valid, another room, no identity, an
// identity too long) and one that never expires (exp = Int64.max, which trapped the server on
// join). Odd first byte: tokens as text, signed with the target's secret (a host's valid at
// the target's time, an expired one, a calls token), one signed with another secret, and
// tokens that are not JWTs at all.

/// The secret FuzzToken signs and verifies with.
private let fuzzSecret = "confer fuzzing secret, thirty-two bytes or more"
/// FuzzToken's time for the tokens given as text.
private let textNow = SessionTime(milliseconds: 1_795_934_360_927)

func tokenSeeds(_ seeds: inout SeedWriter) {
    var files: [(String, [UInt8])] = []
    func claims(_ name: String, role: UInt8, notBefore: Int64, expires: Int64, now: Int64, identity: String = "alice",
                room: String = "standup", joined: String? = "standup") {
        var bytes: [UInt8] = [0, role]
        for value in [notBefore, expires, now] { bytes += (0 ..< 8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> UInt64(8 * $0)) } }
        let strings = [identity, "Alice Liddell", room] + (joined.map { [$0] } ?? [])
        bytes += Array(strings.joined(separator: "\u{0}").utf8)
        files.append(("claims-\(name)", bytes))
    }
    let now: Int64 = 1_795_934_360_927, second = now / 1000
    claims("host", role: 0, notBefore: second - 60, expires: second + 3600, now: now)
    claims("participant", role: 1, notBefore: second, expires: second + 1, now: now)
    claims("observer-any-room", role: 2, notBefore: second - 1, expires: second + 600, now: now, joined: nil)
    claims("expired", role: 1, notBefore: second - 7200, expires: second - 3600, now: now)
    claims("not-yet", role: 0, notBefore: second + 60, expires: second + 3600, now: now)
    claims("other-room", role: 1, notBefore: second - 60, expires: second + 3600, now: now, joined: "retro")
    claims("never-expires", role: 0, notBefore: 0, expires: .max, now: now)
    claims("no-identity", role: 1, notBefore: second - 60, expires: second + 3600, now: now, identity: "")
    claims("long-identity", role: 2, notBefore: second - 60, expires: second + 3600, now: now, identity: String(repeating: "é", count: 150))
    claims("calls", role: 1, notBefore: second - 60, expires: second + 3600, now: now, room: TokenClaims.callScope, joined: TokenClaims.callScope)

    let mine = awaited { try! await TokenIssuer(secret: fuzzSecret) }
    let other = awaited { try! await TokenIssuer(secret: "another secret that is also thirty-two bytes") }
    let start = textNow - .seconds(60)
    let texts: [(String, String)] = [
        ("host", awaited { await mine.sign(TokenClaims(identity: "host", name: "Host", room: "standup", role: .host, notBefore: start, lifetime: .seconds(3600))) }),
        ("expired", awaited { await mine.sign(TokenClaims(identity: "bob", room: "standup", role: .participant, notBefore: start - .seconds(7200), lifetime: .seconds(60))) }),
        ("calls", awaited { await mine.sign(TokenClaims(callsFor: "carol", notBefore: start, lifetime: .seconds(3600))) }),
        ("other-secret", awaited { await other.sign(TokenClaims(identity: "mallory", room: "standup", role: .host, notBefore: start, lifetime: .seconds(3600))) }),
        ("alg-none", "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJtYWxsb3J5In0."),
        ("not-a-jwt", "standup-host-token"),
    ]
    for (name, token) in texts { files.append(("text-\(name)", [1] + Array(token.utf8))) }
    seeds.write("FuzzToken", files)
}
