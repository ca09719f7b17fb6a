@testable import ConferCLI
import ConferSession
import Testing

/// The lines a person types into `confer call --commands`.
@Suite struct TypedCallCommandTests {
    @Test func everyCommandReadsAsItsAction() throws {
        let cases: [(String, CallAction)] = [
            ("accept", .accept), ("Answer", .accept), ("decline", .decline),
            ("mic off", .setDevice(.microphone, on: false)), ("camera ON", .setDevice(.camera, on: true)),
            ("set topic = quarterly review", .set(key: "topic", value: "quarterly review")), ("set a=", .set(key: "a", value: "")),
            ("unset topic", .unset("topic")), ("hangup", .hangUp), ("end", .hangUp), ("leave", .hangUp), ("help", .help),
        ]
        for (line, action) in cases {
            #expect(try CallAction.parse(line) == action, "\(line)")
        }
        #expect(try CallAction.parse("  # a comment") == nil)
    }

    @Test func whatIsNoCommandSaysWhatWouldBe() {
        let cases: [(String, ConsoleCommandError)] = [
            ("kick bob", .unknownCommand("kick")),
            ("accept now", .wrongArguments(command: "accept", usage: "accept")),
            ("mic", .wrongArguments(command: "mic", usage: "mic on|off")),
            ("set topic", .wrongArguments(command: "set", usage: "set KEY=VALUE")),
            ("set =x", .wrongArguments(command: "set", usage: "set KEY=VALUE")),
            ("set a b=c", .wrongArguments(command: "set", usage: "set KEY=VALUE")),
            ("unset", .wrongArguments(command: "unset", usage: "unset KEY")),
        ]
        for (line, error) in cases {
            #expect(throws: error, "\(line)") { try CallAction.parse(line) }
        }
    }

    @Test func aCalleeThatAnswersByHandNeedsAKeyboard() throws {
        let base = ["--server", "http://127.0.0.1:7880", "--token", "t"]
        let error = #expect(throws: (any Error).self) { try CallCommand.parse(base + ["--answer", "manual"]) }
        #expect(error.map { CallCommand.message(for: $0) } == "--answer manual leaves the answer to you: add --commands to type accept or decline")
        #expect(try CallCommand.parse(base + ["--answer", "manual", "--commands"]).answer == .manual)
    }

    @Test func theHelpNamesEveryCommand() {
        for word in ["accept", "decline", "mic", "camera", "set", "unset", "hangup"] {
            #expect(CallAction.usage.contains("  \(word) ") || CallAction.usage.contains("| \(word) "), "\(word)")
        }
    }
}
