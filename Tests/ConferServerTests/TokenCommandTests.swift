@testable import ConferCLI
import Foundation
import Testing

/// What `confer token` takes: a room token with a role, or a call token without one.
@Suite struct TokenCommandTests {
    @Test(arguments: [["--room", "r", "--identity", "a"], ["--room", "r", "--identity", "a", "--role", "observer"],
                      ["--calls", "--identity", "a"]])
    func takes(arguments: [String]) throws {
        _ = try TokenCommand.parse(arguments)
    }

    @Test(arguments: [["--calls", "--identity", "a", "--role", "host"], ["--calls", "--room", "r", "--identity", "a"],
                      ["--identity", "a"], ["--room", "r", "--identity", ""]])
    func refuses(arguments: [String]) {
        #expect(throws: (any Error).self) { try TokenCommand.parse(arguments) }
    }

    @Test func aCallTokenWithARoleSaysItHasNone() {
        let error = #expect(throws: (any Error).self) { try TokenCommand.parse(["--calls", "--identity", "a", "--role", "host"]) }
        #expect(error.map { TokenCommand.message(for: $0) } == "--role host is a role in a room; a call token has none")
    }

    /// `confer token` and `confer serve` read the secret alike: the option first, then the
    /// file (its line without the newline), and say what to do when the file cannot be read.
    @Test func bothCommandsReadTheSecretAlike() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("confer-secret-\(UInt64.random(in: 0 ... .max)).txt")
        try Data("0123456789abcdef0123456789abcdef\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try TokenCommand.parse(["--secret-file", file.path, "--calls", "--identity", "a"])
        #expect(try fromFile.secret.read() == "0123456789abcdef0123456789abcdef")
        let both = try ServeCommand.parse(["--secret", "given", "--secret-file", file.path])
        #expect(try both.secret.read() == "given", "the option wins over the file")
        let missing = try ServeCommand.parse(["--secret-file", "/nonexistent/secret.txt"])
        let error = #expect(throws: (any Error).self) { try missing.secret.read() }
        #expect(error.map { ServeCommand.message(for: $0) } == "cannot read --secret-file /nonexistent/secret.txt")
    }
}
