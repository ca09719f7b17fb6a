import ArgumentParser
import ConferClient

/// What `confer call` and `confer calls` share: the server to sign in to and the token to
/// sign in with.
struct CallServerOptions: ParsableArguments {
    @Option(help: "The server's URL.")
    var server: String
    @Option(help: "A token from `confer token --calls`.")
    var token: String

    /// A call client for these options, signed in as `device` and trusting `trust`'s
    /// certificates (each command lists `--trust` with its other options).
    func client(device: String, trust: String?) throws -> CallClient {
        var configuration = CallClientConfiguration(server: server, token: token, device: device)
        configuration.trustedCertificates = trust
        do { return try CallClient(configuration: configuration) } catch { throw ValidationError("\(error)") }
    }
}
