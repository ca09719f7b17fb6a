import ArgumentParser
import ConferClient
import ConferSession
import Foundation

/// What every command that signs in to a server shares (`confer host`, `join`, `call` and
/// `calls`): its URL, the token to sign in with, and what to trust of a self-signed server.
struct ServerOptions: ParsableArguments {
    @Option(help: "The signaling server's URL.")
    var server: String
    @Option(help: "A token from `confer token` (--role host for `confer host`, --calls for `confer call` and `confer calls`).")
    var token: String
    @Option(help: "PEM certificates to trust for an https:// server (a self-signed one).")
    var trust: String?

    /// A meeting client for these options.
    func meetingClient(devices: DeviceStates = DeviceStates()) throws -> MeetingClient {
        var configuration = MeetingClientConfiguration(server: server, token: token)
        configuration.trustedCertificates = trust
        configuration.devices = devices
        do { return try MeetingClient(configuration: configuration) } catch { throw ValidationError("\(error)") }
    }

    /// A call client for these options, signed in as `device`.
    func callClient(device: String) throws -> CallClient {
        var configuration = CallClientConfiguration(server: server, token: token, device: device)
        configuration.trustedCertificates = trust
        do { return try CallClient(configuration: configuration) } catch { throw ValidationError("\(error)") }
    }
}

/// Where `confer serve` and `confer token` find the secret that signs and checks tokens.
struct SecretOptions: ParsableArguments {
    @Option(help: "The token secret (at least 32 bytes); or --secret-file, or set CONFER_SECRET.")
    var secret: String?
    @Option(help: "A file holding the token secret.")
    var secretFile: String?

    /// The secret from the option, the file or `CONFER_SECRET`, with what to do when missing.
    func read() throws -> String {
        if let secret { return secret }
        if let secretFile {
            guard let text = try? String(contentsOfFile: secretFile, encoding: .utf8) else { throw ValidationError("cannot read --secret-file \(secretFile)") }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let value = ProcessInfo.processInfo.environment["CONFER_SECRET"], !value.isEmpty { return value }
        throw ValidationError("give --secret or --secret-file (at least 32 bytes; e.g. `openssl rand -hex 32`), or set CONFER_SECRET")
    }
}
