import ArgumentParser
import ConferSession
import ConferTokens

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint a token that admits one identity to one room with one role, or to calls.",
        discussion: """
        The token is a JWT signed with HS256 over the server's secret; it carries the identity, display name, \
        room, role, and a validity from now for --ttl seconds.
          confer token --secret "$SECRET" --room standup --identity alice --role host
          confer token --secret "$SECRET" --calls --identity bob      # for `confer call`
        """)

    @OptionGroup var secret: SecretOptions
    @Option(help: "The room the token admits to.")
    var room: String?
    @Flag(help: "A token for placing and answering calls (no room).")
    var calls = false
    @Option(help: "The member's identity, unique in the room.")
    var identity: String
    @Option(help: "The display name (default: the identity).")
    var name: String?
    @Option(help: "host, participant or observer, in the room (default: participant).")
    var role: MemberRole?
    @Option(help: "Seconds the token stays valid.")
    var ttl: Double = 3600

    func validate() throws {
        if !(ttl > 0 && ttl <= 366 * 86_400) { throw ValidationError("--ttl must be between 0 and a year, in seconds") }
        if calls, room != nil { throw ValidationError("--calls and --room exclude each other: a call token admits to no room") }
        if !calls, room == nil { throw ValidationError("give --room (a meeting token) or --calls (a call token)") }
        if calls, let role { throw ValidationError("--role \(role.rawValue) is a role in a room; a call token has none") }
        if let room, room.isEmpty || room.utf8.count > 256 || room == TokenClaims.callScope {
            throw ValidationError("--room must have 1 to 256 bytes and not be \(TokenClaims.callScope)")
        }
        if identity.isEmpty || identity.utf8.count > 256 { throw ValidationError("--identity must have 1 to 256 bytes") }
    }

    func run() async throws {
        let secret = try self.secret.read()
        let issuer: TokenIssuer
        do { issuer = try await TokenIssuer(secret: secret) } catch { throw ValidationError("\(error)") }
        let lifetime = Duration.milliseconds(Int64(ttl * 1000))
        let claims = calls ? TokenClaims(callsFor: identity, name: name, notBefore: SessionTime.now(), lifetime: lifetime)
            : TokenClaims(identity: identity, name: name, room: room ?? "", role: role ?? .participant, notBefore: SessionTime.now(), lifetime: lifetime)
        print(await issuer.sign(claims))
    }
}

