import ConferSession
import Testing

/// The lines a person types into `confer host --commands` and `confer join --commands`.
@Suite struct MeetingActionTests {
    @Test func everyCommandReadsAsItsAction() throws {
        let cases: [(String, MeetingAction)] = [
            ("say hello  there ", .say("hello  there", to: nil)),
            ("tell alice,bob  see you", .say("see you", to: ["alice", "bob"])),
            ("mic off", .setDevice(.microphone, on: false)),
            ("MICROPHONE On", .setDevice(.microphone, on: true)),
            ("camera off", .setDevice(.camera, on: false)),
            ("accept", .answerDeviceRequest(nil, accept: true)),
            ("refuse camera", .answerDeviceRequest(.camera, accept: false)),
            ("apply", .apply),
            ("approve alice", .approve("alice")),
            ("  decline\tbob", .decline("bob")),
            ("kick carol", .kick("carol")),
            ("mute alice mic", .mute("alice", .microphone)),
            ("ask alice camera", .ask("alice", .camera)),
            ("transfer alice", .transfer("alice")),
            ("close", .close),
            ("leave", .leave),
            ("members", .members),
            ("help", .help),
            ("?", .help),
            ("leave\r", .leave),
            ("say hi there\r", .say("hi there", to: nil)),
        ]
        for (line, action) in cases {
            #expect(try MeetingAction.parse(line) == action, "\(line)")
            #expect(try MeetingAction.parse(action.line) == action, "\(action.line)")
        }
    }

    @Test func anActionWritesItsLineInTheCommandsOwnWords() {
        #expect(MeetingAction.say("see you", to: ["alice", "bob"]).line == "tell alice,bob see you")
        #expect(MeetingAction.say("hi", to: nil).line == "say hi")
        #expect(MeetingAction.setDevice(.microphone, on: false).line == "mic off")
        #expect(MeetingAction.answerDeviceRequest(nil, accept: true).line == "accept")
        #expect(MeetingAction.answerDeviceRequest(.camera, accept: false).line == "refuse camera")
        #expect(MeetingAction.mute("alice", .microphone).line == "mute alice mic")
        #expect(MeetingAction.transfer("bob").line == "transfer bob")
        #expect(MeetingAction.help.line == "help")
    }

    @Test func wordsAreSplitAtScalarsSoAMarkAfterASpaceStartsTheMessage() throws {
        // A combining mark joins the space before it into one Character; split by characters,
        // "say \u{301}hi" would be one unknown word, and the line `say` writes would not read back.
        let marked = try #require(try MeetingAction.parse("say\t\u{301}hi"))
        #expect(marked == .say("\u{301}hi", to: nil))
        #expect(try MeetingAction.parse(marked.line) == marked)
        // Any separator ends the recipients: a carriage return too, which is not kept in the message.
        #expect(try MeetingAction.parse("tell a\rhello") == .say("hello", to: ["a"]))
    }

    @Test func blankLinesAndCommentsAreNothing() throws {
        for line in ["", "   ", "\t", "# a script's comment", "  #kick alice"] {
            #expect(try MeetingAction.parse(line) == nil, "\(line)")
        }
    }

    @Test func whatIsNoCommandSaysWhatWouldBe() {
        let cases: [(String, ConsoleCommandError)] = [
            ("frob", .unknownCommand("frob")),
            ("kick", .wrongArguments(command: "kick", usage: "kick ID")),
            ("kick alice bob", .wrongArguments(command: "kick", usage: "kick ID")),
            ("mute alice", .wrongArguments(command: "mute", usage: "mute ID mic|camera")),
            ("mute alice speaker", .wrongArguments(command: "mute", usage: "mute ID mic|camera")),
            ("mic", .wrongArguments(command: "mic", usage: "mic on|off")),
            ("camera maybe", .wrongArguments(command: "camera", usage: "camera on|off")),
            ("say", .wrongArguments(command: "say", usage: "say TEXT")),
            ("say   ", .wrongArguments(command: "say", usage: "say TEXT")),
            ("tell alice", .wrongArguments(command: "tell", usage: "tell ID[,ID…] TEXT")),
            ("tell , hi", .wrongArguments(command: "tell", usage: "tell ID[,ID…] TEXT")),
            ("accept mic camera", .wrongArguments(command: "accept", usage: "accept [mic|camera]")),
            ("close now", .wrongArguments(command: "close", usage: "close")),
        ]
        for (line, error) in cases {
            #expect(throws: error, "\(line)") { try MeetingAction.parse(line) }
        }
        #expect(ConsoleCommandError.unknownCommand("frob").description == "unknown command 'frob': type help for the list")
    }

    @Test func theHelpNamesEveryCommand() {
        for word in ["say", "tell", "mic", "camera", "accept", "refuse", "apply", "members", "leave", "approve", "decline", "kick",
                     "mute", "ask", "transfer", "close"] {
            #expect(MeetingAction.usage.contains("\n  \(word) ") || MeetingAction.usage.contains("| \(word) "), "\(word)")
        }
    }

    @Test func anyLineParsesOrFailsWithAReason() {
        // Whatever is typed, the parser answers: an action (whose line reads back as it), nothing,
        // or a typed error.
        var random = SeededGenerator(seed: 7)
        let alphabet = Array("say tell mic camera on off accept kick mute ask ,#\t  alice ✓\u{0}\r").map(String.init) + ["\u{301}", "\u{600}"]
        for _ in 0 ..< 2000 {
            let line = (0 ..< Int.random(in: 0 ... 30, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            do {
                if let action = try MeetingAction.parse(line) { #expect(try MeetingAction.parse(action.line) == action, "\(line)") }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
