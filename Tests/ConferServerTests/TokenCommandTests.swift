@testable import ConferCLI
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
}
