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
            #expect(try CallAction.parse(action.line) == action, "\(action.line)")
        }
        #expect(CallAction.set(key: "topic", value: "quarterly review").line == "set topic=quarterly review")
        #expect(CallAction.setDevice(.camera, on: true).line == "camera on")
        #expect(CallAction.hangUp.line == "hangup")
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
            ("set a\tb=c", .wrongArguments(command: "set", usage: "set KEY=VALUE")),
            ("set \u{2003}=c", .wrongArguments(command: "set", usage: "set KEY=VALUE")),
            ("unset", .wrongArguments(command: "unset", usage: "unset KEY")),
        ]
        for (line, error) in cases {
            #expect(throws: error, "\(line)") { try CallAction.parse(line) }
        }
    }

    @Test func theHelpNamesEveryCommand() {
        for word in ["accept", "decline", "mic", "camera", "set", "unset", "hangup"] {
            #expect(CallAction.usage.contains("  \(word) ") || CallAction.usage.contains("| \(word) "), "\(word)")
        }
    }
}
